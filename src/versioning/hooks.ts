import type { FastifyInstance, onSendHookHandler, preValidationHookHandler } from 'fastify';
import type { Clock } from '../clock/index.js';

import { ApiError } from '../errors/index.js';
import { hookList, type RouteConfig } from '../http/index.js';
import type { Metrics } from '../metrics/index.js';
import { deprecationHeaders, isPastSunset } from './headers.js';
import type { DeprecationPolicy } from './policy.js';

/**
 * Deprecated operations, wired as each of their routes is registered, so no other route pays a thing:
 * - `onSend`: the deprecation headers on every answer, 401, 404 and 429 included;
 * - `preValidation`: past the sunset, 410 before the parameters are even looked at; before it, each call is
 *   logged and counted by key, so operators can see who still uses it.
 * Register in the `/v1` scope before the operations.
 */
export function registerDeprecation(
  app: FastifyInstance,
  deps: {
    deprecation: DeprecationPolicy;
    clock: Clock;
    metrics: Metrics;
    /** Told of every call made with a key, so that the key's owner can see what it still calls. */
    onCall?: (keyId: string, operationId: string, now: number) => void;
  },
): void {
  const { deprecation, clock, metrics } = deps;
  const headers = deprecationHeaders(deprecation);
  const addHeaders: onSendHookHandler = (_request, reply, payload, done) => {
    reply.headers(headers);
    done(null, payload);
  };
  app.addHook('onRoute', (route) => {
    const config = route.config as RouteConfig | undefined;
    if (config?.deprecated !== true) return;
    const operation = config.operationId ?? route.url;
    const sunsetOrCount: preValidationHookHandler = (request, _reply, done) => {
      if (isPastSunset(deprecation, clock.now())) {
        done(
          new ApiError(
            'endpoint_sunset',
            `This endpoint was retired on ${deprecation.sunsetAt.toUTCString()}`,
          ),
        );
        return;
      }
      const keyId = request.apiKey?.id ?? 'anonymous';
      metrics.deprecatedCalls.inc({ operation, key_id: keyId });
      if (request.apiKey !== null) deps.onCall?.(request.apiKey.id, operation, clock.now());
      request.server.logger.info({ operation, keyId, reqId: request.id }, 'deprecated endpoint called');
      done();
    };
    route.onSend = [...hookList(route.onSend), addHeaders];
    route.preValidation = [...hookList(route.preValidation), sunsetOrCount];
  });
}
