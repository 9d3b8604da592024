import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock/index.js';
import type { Deprecation } from '../config/index.js';
import { ApiError } from '../errors/index.js';
import type { RouteConfig } from '../http/index.js';
import type { Metrics } from '../metrics/index.js';
import { deprecationHeaders, isPastSunset } from './headers.js';

const isDeprecated = (config: unknown) => (config as RouteConfig | undefined)?.deprecated === true;

/**
 * Deprecated operations: their headers go on every answer (401, 404 and 429 included), so the hook that sets
 * them must be added before authentication. Register first in the `/v1` scope.
 */
export function registerDeprecationHeaders(app: FastifyInstance, deprecation: Deprecation): void {
  const headers = deprecationHeaders(deprecation);
  app.addHook('onRequest', (request, reply, done) => {
    if (isDeprecated(request.routeOptions.config)) reply.headers(headers);
    done();
  });
}

/**
 * Once a caller is authenticated and counted: past the sunset a deprecated operation answers 410; before
 * it, each call is logged and counted by key, so operators can see who still uses it.
 */
export function registerSunset(
  app: FastifyInstance,
  deps: { deprecation: Deprecation; clock: Clock; metrics: Metrics },
): void {
  const { deprecation, clock, metrics } = deps;
  app.addHook('preHandler', (request, _reply, done) => {
    const config = request.routeOptions.config as RouteConfig | undefined;
    if (!isDeprecated(config)) {
      done();
      return;
    }
    if (isPastSunset(deprecation, clock.now())) {
      done(
        new ApiError('endpoint_sunset', `This endpoint was retired on ${deprecation.sunsetAt.toUTCString()}`),
      );
      return;
    }
    const operation = config?.operationId ?? request.routeOptions.url ?? '';
    const keyId = request.apiKey?.id ?? 'anonymous';
    metrics.deprecatedCalls.inc({ operation, key_id: keyId });
    request.log.info({ operation, keyId, reqId: request.id }, 'deprecated endpoint called');
    done();
  });
}
