import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { onAnswer, routeTemplate } from '../http/index.js';
import type { Logger } from '../log/index.js';

/**
 * One JSON line per answer (README, "Access log"): request id (`reqId`, as Fastify's own lines name it), method, route template (never the raw path,
 * which can hold ids and query values), status, duration, body bytes, the key or admin token id (never the
 * key), the client address and, when tracing is on, the trace id. Written through the process's logger,
 * whose destination is asynchronous.
 */
export function registerAccessLog(
  app: FastifyInstance,
  deps: { logger: Logger; traceId?: ((request: FastifyRequest) => string | undefined) | undefined },
): void {
  // Every field below is built here from values that hold no secret, so the line skips the logger's redaction
  // pass: it costs about 0.8 us of the line's 1.4 us, measured with pino writing to a no-op destination.
  const log = deps.logger.child({ log: 'access' }, { redact: [] });
  const { traceId } = deps;
  onAnswer(app, (request, reply, bytes) => {
    const line: Record<string, string | number | null> = {
      reqId: request.id,
      method: request.method,
      route: routeTemplate(request) ?? null,
      status: reply.statusCode,
      durationMs: Math.round((performance.now() - request.receivedAt) * 1000) / 1000,
      bytes: request.method === 'HEAD' ? 0 : bytes,
      keyId: request.apiKey?.id ?? request.expiredKey?.id ?? request.adminToken?.id ?? null,
      client: request.ip,
    };
    const trace = traceId?.(request);
    if (trace !== undefined) line.traceId = trace;
    log.info(line, 'request');
  });
}
