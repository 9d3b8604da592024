import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { createCategoryHandlers, createCategoryService } from '../categories/index.js';
import type { Clock } from '../clock/index.js';
import type { Config } from '../config/index.js';
import { API_PREFIX, buildOpenApiDocument } from '../contract/index.js';
import { registerDocs } from '../docs/index.js';
import { type DomainReloader, registerDomains } from '../domains/index.js';
import {
  BODY_LIMIT,
  handleClientError,
  handleError,
  isLocalRequest,
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
import { createIdempotentCreates, registerIdempotencyKey, startPurging } from '../idempotency/index.js';
import { type Authenticator, identifyCaller, requireApiKey } from '../keys/index.js';
import type { Logger } from '../log/index.js';
import type { Metrics } from '../metrics/index.js';
import { createOrderHandlers } from '../orders/index.js';
import { createPetHandlers } from '../pets/index.js';
import { type RateLimiter, registerRateLimit } from '../ratelimit/index.js';
import type { Storage } from '../storage/index.js';
import { registerDeprecation } from '../versioning/index.js';
import { HTTP_TIMEOUTS } from './timeouts.js';

/** A hop count trusts that many proxies in front of us; Fastify takes that as a function. */
function trustProxyOption(value: boolean | number | string[]) {
  return typeof value === 'number' ? (_address: string, hop: number) => hop < value : value;
}

/** The headers of every answer: its request id, no MIME sniffing, and no caching of API answers. */
function standardHeaders(requestId: string): Record<string, string> {
  return { 'x-request-id': requestId, 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };
}

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
  /** The custom domains in force, re-read from the config file; stops watching when the app closes. */
  domains: DomainReloader;
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
    // HEAD of every GET route answers as GET does, without the body (RFC 9110 section 9.3.2).
    exposeHeadRoutes: true,
    genReqId: requestIdFor,
    requestIdHeader: false,
    // In-flight and keep-alive requests are served while draining; `startServer` bounds the drain.
    return503OnClosing: false,
    clientErrorHandler: handleClientError,
    // Errors Fastify meets before routing (a URL it cannot decode) skip the hooks; answer them alike.
    frameworkErrors: (error, request, reply) => {
      reply.headers(standardHeaders(request.id));
      handleError(error, request, reply);
    },
    // One logger for every request: a child logger per request costs time on the hot path, and the lines
    // that log a request carry its id themselves.
    childLoggerFactory: (logger) => logger,
    keepAliveTimeout: HTTP_TIMEOUTS.keepAlive,
    requestTimeout: HTTP_TIMEOUTS.request,
    http: {
      headersTimeout: HTTP_TIMEOUTS.headers,
      connectionsCheckingInterval: HTTP_TIMEOUTS.checkInterval,
    },
    routerOptions: { maxParamLength: 100 },
    trustProxy: trustProxyOption(config.trustProxy),
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
    // The same headers as standardHeaders(), set one by one: this runs on every request.
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
  // After the standard headers, before any route: redirects and 421s of custom domains, and the TLS ask check.
  registerDomains(app, {
    domains: deps.domains,
    verifications: storage.domains,
    host: config.host,
    publicUrls: config.publicUrls,
  });
  // Stored idempotent answers expire after 24 h; purging keeps the table bounded.
  const stopPurging = startPurging({ idempotency: storage.idempotency, clock, logger });
  app.addHook('onClose', async () => {
    stopPurging();
    authenticator.stop();
    await limiter.close();
    await storage.close();
  });

  const categories = createCategoryService({ storage });
  // Another instance's write makes our cached list stale: PostgreSQL tells us (LISTEN/NOTIFY).
  await storage.watchCategories(() => categories.invalidate());
  const creates = createIdempotentCreates({ idempotency: storage.idempotency, clock });
  const handlers: OperationHandlers = {
    ...createCategoryHandlers({ categories, creates }),
    ...createPetHandlers({ pets: storage.pets, creates }),
    ...createOrderHandlers({ orders: storage.orders, clock, creates }),
  };
  await app.register(
    async (v1) => {
      // In this order: every /v1 request is identified, counted (by key, or by address for strangers) and
      // given rate-limit headers before anything can answer it, 401 and 404 included.
      identifyCaller(v1, authenticator);
      registerRateLimit(v1, limiter);
      requireApiKey(v1);
      registerIdempotencyKey(v1);
      registerDeprecation(v1, { deprecation: config.deprecation, clock, metrics });
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
  registerDocs(app, { title: 'Pet Store API reference', specUrl: '/openapi.json' });
  app.get('/healthz', async (_request, reply) => reply.type(JSON_CONTENT_TYPE).send('{"status":"ok"}'));
  app.get('/readyz', async (request, reply) => {
    // Storage is required. A shared rate-limit store that is down makes the instance degraded, not unready,
    // when the policy is to fail open: taking every instance out of the balancer would be worse.
    const reach = (ping: Promise<void>) =>
      ping.then(
        () => 'ok' as const,
        (error: unknown) => {
          request.log.warn({ err: error }, 'readiness check failed');
          return 'unreachable' as const;
        },
      );
    const checks: Record<string, 'ok' | 'unreachable'> = { [storage.kind]: await reach(storage.ping()) };
    if (config.rateLimitStore.kind === 'redis') checks.redis = await reach(limiter.ping());
    const down = Object.keys(checks).filter((name) => checks[name] !== 'ok');
    const required = down.filter((name) => name !== 'redis' || config.rateLimitFail === 'closed');
    if (required.length > 0) {
      return sendError(
        request,
        reply,
        'service_unavailable',
        `Not ready: ${required.join(' and ')} unreachable`,
      );
    }
    const status = down.length === 0 ? 'ready' : 'degraded';
    return reply.type(JSON_CONTENT_TYPE).send(JSON.stringify({ status, checks }));
  });
  // Operators' counters name API key ids, so they are served only to this machine (the socket's address,
  // never X-Forwarded-For); elsewhere the path does not exist.
  app.get('/metrics', async (request, reply) => {
    if (!isLocalRequest(request)) return notFound(request, reply);
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(metrics.render());
  });

  return app;
}
