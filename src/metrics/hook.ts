import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { onAnswer, type RouteConfig, routeTemplate } from '../http/index.js';
import type { Metrics } from './metrics.js';

/**
 * Counts every answer by operation, method and status, and times it by operation. The labelled children are
 * made once per combination and kept: prom-client's label lookup costs more than the count.
 */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  const counters = new Map<string, ReturnType<Metrics['requests']['labels']>>();
  const timers = new Map<string, ReturnType<Metrics['requestDuration']['labels']>>();
  onAnswer(app, (request, reply) => {
    const options = request.routeOptions;
    const operation =
      (options.config as RouteConfig | undefined)?.operationId ?? routeTemplate(request) ?? 'none';
    const status = reply.statusCode;
    const slot = `${operation} ${request.method} ${status}`;
    let counter = counters.get(slot);
    if (counter === undefined) {
      counter = metrics.requests.labels({ operation, method: request.method, status: String(status) });
      counters.set(slot, counter);
    }
    counter.inc();
    let timer = timers.get(operation);
    if (timer === undefined) {
      timer = metrics.requestDuration.labels({ operation });
      timers.set(operation, timer);
    }
    timer.observe((performance.now() - request.receivedAt) / 1000);
  });
}
