import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { createCategoryHandlers, createCategoryService } from '../categories/index.js';
import type { Clock } from '../clock/index.js';
import type { Config } from '../config/index.js';
import { API_PREFIX, buildOpenApiDocument } from '../contract/index.js';
import {
  BODY_LIMIT,
  handleClientError,
  JSON_CONTENT_TYPE,
  notFound,
  type OperationHandlers,
  type RouteConfig,
  registerErrorHandling,
  registerJsonBodyParser,
  registerOperations,
  registerValidators,
  requestIdFor,
  sendError,
} from '../http/index.js';
import { type Authenticator, identifyCaller, requireApiKey } from '../keys/index.js';
import type { Logger } from '../log/index.js';
import type { Metrics } from '../metrics/index.js';
import { createOrderHandlers } from '../orders/index.js';
import { createPetHandlers } from '../pets/index.js';
import { type RateLimiter, registerRateLimit } from '../ratelimit/index.js';
import type { Storage } from '../storage/index.js';
import { registerDeprecationHeaders, registerSunset } from '../versioning/index.js';
import { HTTP_TIMEOUTS } from './timeouts.js';

const isLoopback = (address: string | undefined) =>
  address !== undefined &&
  (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'));

/** One method and path the app answers, with its route config. */
export interface ServedRoute {
  method: string;
  url: string;
  config: RouteConfig | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every method and path registered, in registration order. */
    servedRoutes: readonly ServedRoute[];
  }
}

/** Everything the app is built from, made once per process by the composition root. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  /** Closed by the app when it closes. */
  storage: Storage;
  /** Started by the caller; stopped by the app when it closes. */
  authenticator: Authenticator;
  limiter: RateLimiter;
  clock: Clock;
  metrics: Metrics;
}

/**
 * Builds the HTTP app: plugins, routes, hooks and the error handler. It never listens; `startServer` does.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, logger, storage, authenticator, limiter, clock, metrics } = deps;
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // One log line per request was not proven cheap on the hot path (BENCHMARKS.md item 6); errors are logged.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'reqId' }),
    bodyLimit: BODY_LIMIT,
    // HEAD is not part of the contract; it is answered 405 like every other undocumented method.
    exposeHeadRoutes: false,
    genReqId: requestIdFor,
    requestIdHeader: false,
    // In-flight and keep-alive requests are served while draining; `startServer` bounds the drain.
    return503OnClosing: false,
    clientErrorHandler: handleClientError,
    keepAliveTimeout: HTTP_TIMEOUTS.keepAlive,
    requestTimeout: HTTP_TIMEOUTS.request,
    http: {
      headersTimeout: HTTP_TIMEOUTS.headers,
      connectionsCheckingInterval: HTTP_TIMEOUTS.checkInterval,
    },
    routerOptions: { maxParamLength: 100 },
    trustProxy: config.trustProxy,
  });

  registerValidators(app);
  registerJsonBodyParser(app);
  registerErrorHandling(app);

  // The served route table, so that a test can hold it against the OpenAPI document.
  const routes: ServedRoute[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods)
      routes.push({ method, url: route.url, config: route.config as RouteConfig });
  });
  app.decorate('servedRoutes', routes);

  let closing = false;
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('cache-control', 'no-store');
    // While draining, ask keep-alive clients to reconnect (to another instance).
    if (closing) reply.header('connection', 'close');
    done();
  });
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onClose', async () => {
    authenticator.stop();
    await limiter.close();
    await storage.close();
  });

  const categories = createCategoryService({ storage });
  const handlers: OperationHandlers = {
    ...createCategoryHandlers({ categories }),
    ...createPetHandlers({ pets: storage.pets }),
    ...createOrderHandlers({ orders: storage.orders, clock }),
  };
  await app.register(
    async (v1) => {
      // In this order: every /v1 request is identified, counted (by key, or by address for strangers) and
      // given rate-limit headers before anything can answer it, 401 and 404 included.
      registerDeprecationHeaders(v1, config.deprecation);
      identifyCaller(v1, authenticator);
      registerRateLimit(v1, limiter);
      requireApiKey(v1);
      registerSunset(v1, { deprecation: config.deprecation, clock, metrics });
      registerOperations(v1, handlers);
      // Unknown paths under /v1 pass the same hooks, so no answer there reveals what exists to strangers.
      v1.setNotFoundHandler(notFound);
    },
    { prefix: API_PREFIX },
  );

  const document = Buffer.from(
    JSON.stringify(
      buildOpenApiDocument({
        servers: config.publicUrls,
        rateLimit: config.rateLimit,
        deprecation: config.deprecation,
      }),
    ),
  );
  app.get('/openapi.json', async (_request, reply) => reply.type(JSON_CONTENT_TYPE).send(document));
  app.get('/healthz', async (_request, reply) => reply.type(JSON_CONTENT_TYPE).send('{"status":"ok"}'));
  app.get('/readyz', async (request, reply) => {
    try {
      await storage.ping();
    } catch (error) {
      request.log.warn({ err: error }, 'storage is not ready');
      return sendError(request, reply, 'service_unavailable', `Storage (${storage.kind}) is unreachable`);
    }
    return reply.type(JSON_CONTENT_TYPE).send(JSON.stringify({ status: 'ready', checks: { storage: 'ok' } }));
  });
  // Operators' counters name API key ids, so they are served only to this machine (the socket's address,
  // never X-Forwarded-For); elsewhere the path does not exist.
  app.get('/metrics', async (request, reply) => {
    if (!isLoopback(request.socket.remoteAddress)) return notFound(request, reply);
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(metrics.render());
  });

  return app;
}
