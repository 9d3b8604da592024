import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { createCategoryHandlers, createCategoryService } from '../categories/index.js';
import type { Clock } from '../clock/index.js';
import type { Config } from '../config/index.js';
import { API_PREFIX, buildOpenApiDocument } from '../contract/index.js';
import { registerDocs } from '../docs/index.js';
import { type DomainReloader, registerDomains } from '../domains/index.js';
import { type ReadinessCheck, registerHealth } from '../health/index.js';
import {
  BODY_LIMIT,
  handleClientError,
  handleFrameworkError,
  notFound,
  type OperationHandlers,
  recordServedRoutes,
  registerErrorHandling,
  registerJsonBodyParser,
  registerOperations,
  registerStandardHeaders,
  registerValidators,
  requestIdFor,
} from '../http/index.js';
import {
  createIdempotentCreates,
  type IdempotentCreates,
  registerIdempotencyKey,
  startPurging,
} from '../idempotency/index.js';
import { type Authenticator, identifyCaller, requireApiKey } from '../keys/index.js';
import type { Logger } from '../log/index.js';
import type { Metrics } from '../metrics/index.js';
import { createOrderHandlers } from '../orders/index.js';
import { createPetHandlers } from '../pets/index.js';
import { type RateLimiter, registerRateLimit } from '../ratelimit/index.js';
import type { Storage } from '../storage/index.js';
import { registerDeprecation } from '../versioning/index.js';
import { HTTP_TIMEOUTS } from './timeouts.js';

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

/** What the stages of `/v1` are built from: the app's dependencies and the operations' handlers. */
type ApiDeps = AppDeps & { handlers: OperationHandlers };

/**
 * The stages every request under `/v1` passes, in this order, each registering its hooks on the scope.
 * Every request is identified, counted and given its rate-limit headers before anything can answer it,
 * 401 and 404 included.
 */
const API_STAGES: readonly { does: string; register(scope: FastifyInstance, deps: ApiDeps): void }[] = [
  {
    does: 'identifies the caller by its API key, or marks why it has none',
    register: (scope, { authenticator }) => identifyCaller(scope, authenticator),
  },
  {
    does: 'counts the request, by key or by address for strangers, and puts the rate-limit headers on',
    register: (scope, { limiter }) => registerRateLimit(scope, limiter),
  },
  { does: 'refuses a request without a valid key with 401', register: (scope) => requireApiKey(scope) },
  { does: 'reads the Idempotency-Key of a POST', register: (scope) => registerIdempotencyKey(scope) },
  {
    does: 'marks the deprecated operations, and retires them at their sunset',
    register: (scope, { config, clock, metrics }) =>
      registerDeprecation(scope, { deprecation: config.deprecation, clock, metrics }),
  },
  {
    does: 'serves the operations of the contract, and 405 for other methods',
    register: (scope, { handlers }) => registerOperations(scope, handlers),
  },
  {
    // Unknown paths under /v1 pass the same stages, so no answer there reveals what exists to strangers.
    does: 'answers an unknown path with 404',
    register: (scope) => scope.setNotFoundHandler(notFound),
  },
];

/** A hop count trusts that many proxies in front of us; Fastify takes that as a function. */
function trustProxyOption(value: boolean | number | string[]) {
  return typeof value === 'number' ? (_address: string, hop: number) => hop < value : value;
}

function createFastify(config: Config, logger: Logger): FastifyInstance {
  return Fastify({
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
    frameworkErrors: handleFrameworkError,
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
}

/** The handler of every operation of the contract, over one create path. */
function operationHandlers(deps: AppDeps, creates: IdempotentCreates) {
  const { storage, clock } = deps;
  const categories = createCategoryService({ categories: storage.categories });
  // Another instance's write makes our cached list stale: PostgreSQL tells us (LISTEN/NOTIFY).
  const watching = storage.watchCategories(() => categories.invalidate());
  const handlers: OperationHandlers = {
    ...createCategoryHandlers({ categories, creates }),
    ...createPetHandlers({ pets: storage.pets, creates }),
    ...createOrderHandlers({ orders: storage.orders, clock, creates }),
  };
  return { handlers, watching };
}

/** The backing services readiness checks: storage always; Redis only when limits fail closed without it. */
function readinessChecks({ config, storage, limiter }: AppDeps): ReadinessCheck[] {
  const checks: ReadinessCheck[] = [{ name: storage.kind, ping: () => storage.ping(), required: true }];
  const store = config.rateLimitStore;
  if (store.kind === 'redis')
    checks.push({ name: 'redis', ping: () => limiter.ping(), required: store.fail === 'closed' });
  return checks;
}

/**
 * Builds the HTTP app: plugins, routes, hooks and the error handler. It never listens; `startServer` does.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, logger, storage, authenticator, limiter, clock, metrics } = deps;
  const app = createFastify(config, logger);
  registerValidators(app);
  registerJsonBodyParser(app);
  registerErrorHandling(app);
  recordServedRoutes(app);
  registerStandardHeaders(app);
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

  const { handlers, watching } = operationHandlers(deps, createIdempotentCreates({ storage, clock }));
  await watching;
  await app.register(
    async (v1) => {
      for (const stage of API_STAGES) stage.register(v1, { ...deps, handlers });
    },
    { prefix: API_PREFIX },
  );

  const document = buildOpenApiDocument({
    servers: config.publicUrls,
    rateLimit: config.rateLimit,
    deprecation: config.deprecation,
  });
  registerDocs(app, { title: 'Pet Store API reference', document: Buffer.from(JSON.stringify(document)) });
  registerHealth(app, { checks: readinessChecks(deps), metrics });
  return app;
}
