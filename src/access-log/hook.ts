import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pino } from 'pino';
import { onAnswer, routeTemplate } from '../http/index.js';
import type { Logger } from '../log/index.js';

/** What the access log writes its lines to: the logger's own destination. */
type Destination = { write(line: string): unknown };

/**
 * One JSON line per answer (README, "Access log"): request id (`reqId`, as Fastify's own lines name it),
 * method, route template (never the raw path, which can hold ids and query values), status, duration, body
 * bytes, the key or admin token id (never the key), the client address and, when tracing is on, the trace
 * id. Written at the logger's `info` level, with its bindings, to its destination, which is asynchronous.
 *
 * The line is serialized here with one `JSON.stringify`, in the shape pino gives its own lines, and not by
 * `logger.info`: every field is built here from values that hold no secret, so it needs none of pino's
 * redaction or serializers, and pino's field-by-field serializer was most of the line's cost on the list
 * (about 0.8 us of a request's 20 us in a CPU profile of `GET /v1/categories`).
 */
export function registerAccessLog(
  app: FastifyInstance,
  deps: { logger: Logger; traceId?: ((request: FastifyRequest) => string | undefined) | undefined },
): void {
  const { logger, traceId } = deps;
  const internals = logger as unknown as Record<symbol, unknown>;
  const destination = internals[pino.symbols.streamSym] as Destination;
  const level = logger.levels.values.info;
  // The logger's bindings as pino writes them (`,"pid":…`, a comma before each), then the line's own name.
  const bindings = `${internals[pino.symbols.chindingsSym] as string},"log":"access"`;
  onAnswer(app, (request, reply, bytes) => {
    if (!logger.isLevelEnabled('info')) return;
    const fields = {
      reqId: request.id,
      method: request.method,
      route: routeTemplate(request) ?? null,
      status: reply.statusCode,
      durationMs: Math.round((performance.now() - request.receivedAt) * 1000) / 1000,
      bytes: request.method === 'HEAD' ? 0 : bytes,
      keyId: request.apiKey?.id ?? request.expiredKey?.id ?? request.adminToken?.id ?? null,
      client: request.ip,
      // Left out of the line when tracing is off: JSON.stringify skips an undefined value.
      traceId: traceId?.(request),
      msg: 'request',
    };
    destination.write(
      `{"level":${level},"time":${Date.now()}${bindings},${JSON.stringify(fields).slice(1)}\n`,
    );
  });
}
