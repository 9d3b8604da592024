import type { FastifyInstance } from 'fastify';
import type { LabelValues } from 'prom-client';
import { onAnswer, routeConfig, routeTemplate } from '../http/index.js';
import type { Metrics } from './metrics.js';
import type { HistogramTally, Tally } from './tally.js';

type Labels = 'operation' | 'method' | 'status';

/** What one operation's answers are counted and timed in, made as its first answer of each kind is. */
interface OperationMetrics {
  timer: HistogramTally<'operation'>;
  /** By method, then status. */
  answers: Map<string, Map<number, Tally<Labels>>>;
}

/**
 * Counts every answer by operation, method and status, and times it by operation. What each combination is
 * counted in is made once and kept, looked up by the values as they come: prom-client's label lookup, and
 * a string made of the three, cost more than the count.
 */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  const operations = new Map<string, OperationMetrics>();
  const operationMetrics = (operation: string) => {
    let found = operations.get(operation);
    if (found === undefined) {
      found = { timer: metrics.requestDuration.tally({ operation }), answers: new Map() };
      operations.set(operation, found);
    }
    return found;
  };
  const answerTally = (operation: string, { answers }: OperationMetrics, method: string, status: number) => {
    let byStatus = answers.get(method);
    if (byStatus === undefined) {
      byStatus = new Map();
      answers.set(method, byStatus);
    }
    let tally = byStatus.get(status);
    if (tally === undefined) {
      const labels: LabelValues<Labels> = { operation, method, status: String(status) };
      tally = metrics.requests.tally(labels);
      byStatus.set(status, tally);
    }
    return tally;
  };
  const { answers } = metrics;
  onAnswer(app, (request, reply, _bytes, elapsedMs) => {
    answers.count += 1;
    const operation = routeConfig(request).operationId ?? routeTemplate(request) ?? 'none';
    const counted = operationMetrics(operation);
    answerTally(operation, counted, request.method, reply.statusCode).add();
    counted.timer.observe(elapsedMs / 1000);
  });
}
