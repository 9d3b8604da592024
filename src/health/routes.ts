import type { FastifyInstance } from 'fastify';
import { JSON_CONTENT_TYPE, sendError } from '../http/index.js';
import { warnUnlessOutage } from '../log/index.js';
import type { Metrics } from '../metrics/index.js';
import { localOnly } from './local.js';

/** A backing service readiness depends on. */
export interface ReadinessCheck {
  name: string;
  /** Resolves when the service answers. */
  ping(): Promise<void>;
  /**
   * Whether the instance cannot serve without it. A shared rate-limit store that fails open is not: taking
   * every instance out of the balancer while it is down would be worse than per-instance limits.
   */
  required: boolean;
}

/** How long a readiness check may take: a database cut off must not hold a load balancer's probe past its own. */
const CHECK_TIMEOUT_MS = 2_000;

/** Resolves when the check answers; rejects when it fails or takes longer than `CHECK_TIMEOUT_MS`. */
function pingWithin(check: ReadinessCheck): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([check.ping(), timeout]).finally(() => clearTimeout(timer));
}

/** The paths of the routes below, which load balancers and scrapers call by any name. */
export const HEALTH_PATHS = ['/healthz', '/readyz', '/metrics'] as const;

/**
 * The routes outside `/v1` that tell operators and load balancers how the instance is:
 * - `GET /healthz`: the process answers (liveness);
 * - `GET /readyz`: every check, `ready`, `degraded` (an optional one is down) or 503 (a required one is);
 * - `GET /metrics`: the counters, to this machine only (they name API key ids).
 */
export function registerHealth(
  app: FastifyInstance,
  deps: { checks: readonly ReadinessCheck[]; metrics: Metrics },
): void {
  const { checks, metrics } = deps;
  app.get('/healthz', async (_request, reply) => reply.type(JSON_CONTENT_TYPE).send('{"status":"ok"}'));
  app.get('/readyz', async (request, reply) => {
    const results = await Promise.all(
      checks.map((check) =>
        pingWithin(check).then(
          () => 'ok' as const,
          (error: unknown) => {
            // A dependency that is away is logged once by its outage log, not once a probe.
            warnUnlessOutage(request.server.logger, error, 'readiness check failed', { check: check.name });
            return 'unreachable' as const;
          },
        ),
      ),
    );
    const down = checks.filter((_check, index) => results[index] !== 'ok');
    const required = down.filter((check) => check.required).map((check) => check.name);
    if (required.length > 0) {
      return sendError(
        request,
        reply,
        'service_unavailable',
        `Not ready: ${required.join(' and ')} unreachable`,
      );
    }
    const status = down.length === 0 ? 'ready' : 'degraded';
    const report = Object.fromEntries(checks.map((check, index) => [check.name, results[index]]));
    return reply.type(JSON_CONTENT_TYPE).send(JSON.stringify({ status, checks: report }));
  });
  app.get('/metrics', { onRequest: localOnly }, async (_request, reply) =>
    reply.type(metrics.contentType).send(await metrics.render()),
  );
}
