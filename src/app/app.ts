import http from 'node:http';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { registerAccessLog } from '../access-log/index.js';
import { createAccountHandlers } from '../account/index.js';
import { createAdminHandlers } from '../admin/index.js';
import { type CategoryService, createCategoryHandlers } from '../categories/index.js';
import type { Clock } from '../clock/index.js';
import { type Config, packageBytes, packageFile } from '../config/index.js';
import { CONSOLE_PATH, registerConsole } from '../console/index.js';
import {
  ADMIN_API,
  ADMIN_PREFIX,
  API_PREFIX,
  API_VERSION,
  type ApiKey,
  buildAdminDocument,
  buildOpenApiDocument,
  V1_API,
} from '../contract/index.js';
import { registerCors } from '../cors/index.js';
import { GUIDES, guideUrl, registerDocs } from '../docs/index.js';
import { type Domains, registerDomains } from '../domains/index.js';
import { HEALTH_PATHS, type ReadinessCheck, registerHealth } from '../health/index.js';
import {
  type AdminHandlers,
  BODY_LIMIT,
  clientErrorHandler,
  decorateRouteConfig,
  handleFrameworkError,
  notFound,
  type OperationHandlers,
  recordServedRoutes,
  registerErrorHandling,
  registerForwardedAddresses,
  registerJsonBodyParser,
  registerLogger,
  registerOperations,
  registerStandardHeaders,
  registerValidators,
  requestIdFor,
  routeConfig,
  type UnparsedAnswer,
} from '../http/index.js';
import { type IdempotentCreates, registerIdempotencyKey, startPurging } from '../idempotency/index.js';
import {
  type AdminAuthenticator,
  type AdminTokenManager,
  identifyAdmin,
  registerOidcSignIn,
  requireAdmin,
  requireRole,
  type Sessions,
} from '../identity/index.js';
import {
  type ApiKeyRecord,
  type Authenticator,
  type ExpiryNotices,
  identifyCaller,
  type KeyManager,
  requireApiKey,
  requireScope,
} from '../keys/index.js';
import type { Logger } from '../log/index.js';
import { type Metrics, registerRequestMetrics } from '../metrics/index.js';
import { createOrderHandlers } from '../orders/index.js';
import type { RelyingParty } from '../people/index.js';
import { createPetHandlers } from '../pets/index.js';
import { type Decision, type RateLimiter, registerRateLimit } from '../ratelimit/index.js';
import { type RequestLog, recordUnparsed, registerRequestLog } from '../request-log/index.js';
import type { Storage } from '../storage/index.js';
import type { Tracing } from '../tracing/index.js';
import { registerUsage, type UsageRecorder } from '../usage/index.js';
import { registerDeprecation } from '../versioning/index.js';
import type { Webhooks } from '../webhooks/index.js';
import { HTTP_TIMEOUTS } from './timeouts.js';

/** Everything the app is built from, made once per process by the composition root. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  /** Closed by the app when it closes. */
  storage: Storage;
  /** Started by the caller; stopped by the app when it closes. */
  authenticator: Authenticator;
  /** Started by the caller; stopped by the app when it closes. */
  adminAuthenticator: AdminAuthenticator;
  limiter: RateLimiter;
  /** Started by the caller; flushed and stopped by the app when it closes. */
  recorder: UsageRecorder;
  clock: Clock;
  metrics: Metrics;
  /** Spans of each request and its calls, exported over OTLP; undefined when tracing is off. Shut down by the app. */
  tracing: Tracing | undefined;
  /** The custom domains: served from memory, re-checked on their schedule; closed by the app. */
  domains: Domains;
  /** A row per answered request (`REQUEST_LOG`); undefined when off. Started by the caller; stopped by the app. */
  requestLog: RequestLog | undefined;
  /** The webhook endpoints and the dispatcher of their outbox; started by the caller, closed by the app. */
  webhooks: Webhooks;
  /** `key.expiring`, a week and a day before each key's expiry; started by the caller, stopped by the app. */
  keyNotices: ExpiryNotices;
  /** The key manager the admin API and a key's own operations change keys through, as the CLI does. */
  keys: KeyManager;
  /** A key as the admin API shows it (and the operator events carry it): made once, here. */
  keyView: (record: ApiKeyRecord) => ApiKey;
  /** The categories, their list kept in memory and told of other instances' writes. */
  categories: CategoryService;
  /** Every create: its row, an `Idempotency-Key`'s answer and its webhook event, in one transaction. */
  creates: IdempotentCreates;
  /** The console's sessions, which the admin API accepts as its tokens. */
  sessions: Sessions;
  /** Sign-in with the OpenID Connect provider; undefined without `OIDC_ISSUER`. */
  relyingParty: RelyingParty | undefined;
  /** Makes and revokes admin tokens, as `petstore admin-tokens` does. */
  tokenManager: AdminTokenManager;
}

/** What the stages of an API are built from: the app's dependencies and the operations' handlers. */
type StageDeps<H> = AppDeps & { handlers: H };

/** One stage of an API: what it does, and the hooks (or routes) it registers on the API's scope. */
interface Stage<H> {
  does: string;
  register(scope: FastifyInstance, deps: StageDeps<H>): void;
}

/** Counts rate-limit decisions by outcome: those on requests without a credential are `anonymous`. */
function countDecisions(metrics: Metrics, identified: (request: FastifyRequest) => boolean) {
  const outcomes = {
    allowed: metrics.rateLimitDecisions.tally({ outcome: 'allowed' }),
    limited: metrics.rateLimitDecisions.tally({ outcome: 'limited' }),
    banned: metrics.rateLimitDecisions.tally({ outcome: 'banned' }),
    anonymous: metrics.rateLimitDecisions.tally({ outcome: 'anonymous' }),
  };
  return (request: FastifyRequest, decision: Decision) =>
    (identified(request) ? outcomes[decision.kind] : outcomes.anonymous).add();
}

/** Whether the request's operation spends quota; reading one's own key does not. */
const spendsQuota = (request: FastifyRequest) => routeConfig(request).countsAgainstQuota !== false;

/**
 * The stages every request under `/v1` passes, in this order, each registering its hooks on the scope.
 * Every request is identified, counted and given its rate-limit headers before anything can answer it,
 * 401, 403 and 404 included. (The request log keeps a row of every answer of the app: `buildApp`.)
 */
const API_STAGES: readonly Stage<OperationHandlers>[] = [
  {
    does: 'identifies the caller by its API key, or marks why it has none',
    register: (scope, { authenticator, clock }) => identifyCaller(scope, { authenticator, clock }),
  },
  {
    does: "counts every answer against the key that asked, by outcome, once it is sent (the key's usage)",
    register: (scope, { recorder, clock }) => registerUsage(scope, { recorder, clock }),
  },
  {
    does: 'counts the request, by key or by address for strangers, and puts the rate-limit headers on',
    register: (scope, { limiter, metrics }) =>
      registerRateLimit(
        scope,
        (request) =>
          request.apiKey === null
            ? limiter.forAddress(request.ip)
            : routeConfig(request).ownLimit === 'requestLogReads'
              ? limiter.forRequestLogRead(request.apiKey)
              : spendsQuota(request)
                ? limiter.forKey(request.apiKey)
                : limiter.peekKey(request.apiKey),
        countDecisions(metrics, (request) => request.apiKey !== null),
      ),
  },
  {
    does: 'refuses a request without a valid key with 401',
    register: (scope, { config }) => requireApiKey(scope, config.env),
  },
  {
    does: "refuses a key without the operation's scope with 403",
    register: (scope) => requireScope(scope),
  },
  { does: 'reads the Idempotency-Key of a POST', register: (scope) => registerIdempotencyKey(scope) },
  {
    does: 'marks the deprecated operations, and retires them at their sunset',
    register: (scope, { config, clock, metrics, recorder }) =>
      registerDeprecation(scope, {
        deprecation: config.deprecation,
        clock,
        metrics,
        onCall: (keyId, operationId, now) => recorder.recordDeprecatedCall(keyId, operationId, now),
      }),
  },
  {
    does: 'serves the operations of the contract, and 405 for other methods',
    register: (scope, { handlers }) => registerOperations(scope, V1_API, handlers),
  },
  {
    // Unknown paths under /v1 pass the same stages, so no answer there reveals what exists to strangers.
    does: 'answers an unknown path with 404',
    register: (scope) => scope.setNotFoundHandler(notFound),
  },
];

/** The stages of every request under `/admin/v1`, in this order: the API's own, for admin tokens. */
const ADMIN_STAGES: readonly Stage<AdminHandlers>[] = [
  {
    does: 'identifies the admin token, sent or of a console session, or marks why there is none',
    register: (scope, { adminAuthenticator, sessions }) => identifyAdmin(scope, adminAuthenticator, sessions),
  },
  {
    does: 'counts the request, by token or by address for strangers, and puts the rate-limit headers on',
    register: (scope, { limiter, metrics }) =>
      registerRateLimit(
        scope,
        (request) =>
          request.admin === null ? limiter.forAddress(request.ip) : limiter.forAdminToken(request.admin.id),
        countDecisions(metrics, (request) => request.admin !== null),
      ),
  },
  {
    does: 'refuses a request without a valid admin token with 401, and a session’s change from elsewhere with 403',
    register: (scope) => requireAdmin(scope),
  },
  {
    does: "refuses a token without the operation's role with 403, audited",
    register: (scope, { storage, clock, logger }) =>
      requireRole(scope, { audit: storage.audit, clock, logger }),
  },
  {
    does: 'serves the operations of the admin API, and 405 for other methods',
    register: (scope, { handlers }) => registerOperations(scope, ADMIN_API, handlers),
  },
  { does: 'answers an unknown path with 404', register: (scope) => scope.setNotFoundHandler(notFound) },
];

/** Where the OpenAPI documents of the API and of the admin API are served. */
const DOCUMENT_PATHS = ['/openapi.json', '/admin/openapi.json'] as const;

/** A hop count trusts that many proxies in front of us; Fastify takes that as a function. */
function trustProxyOption(value: boolean | number | string[]) {
  return typeof value === 'number' ? (_address: string, hop: number) => hop < value : value;
}

/**
 * Fastify, made without a logger: the app's own lines go to `app.logger` (http/logger.ts), and one access line
 * per answer to the access log. `request.log` and `app.log` write nothing.
 */
function createFastify(config: Config, onUnparsed: (answer: UnparsedAnswer) => void): FastifyInstance {
  return Fastify({
    bodyLimit: BODY_LIMIT,
    // HEAD of every GET route answers as GET does, without the body (RFC 9110 section 9.3.2).
    exposeHeadRoutes: true,
    genReqId: requestIdFor,
    requestIdHeader: false,
    // In-flight and keep-alive requests are served while draining; `startServer` bounds the drain.
    return503OnClosing: false,
    clientErrorHandler: clientErrorHandler(onUnparsed),
    frameworkErrors: handleFrameworkError,
    keepAliveTimeout: HTTP_TIMEOUTS.keepAlive,
    requestTimeout: HTTP_TIMEOUTS.request,
    http: {
      headersTimeout: HTTP_TIMEOUTS.headers,
      connectionsCheckingInterval: HTTP_TIMEOUTS.checkInterval,
    },
    // A path parameter longer than this fails routing itself, before any hook: an answer nobody counts, limits
    // or logs as a request. None can be longer than the request line, which Node's header limit (16 KiB)
    // bounds, so routing never fails on length; each operation refuses what is too long for it.
    routerOptions: { maxParamLength: http.maxHeaderSize },
    trustProxy: trustProxyOption(config.trustProxy),
  });
}

/** The handler of every operation of the contract. */
function operationHandlers(deps: AppDeps): OperationHandlers {
  const { storage, clock, recorder, config, authenticator, categories, creates, keys } = deps;
  return {
    ...createCategoryHandlers({ categories, creates }),
    ...createPetHandlers({ pets: storage.pets, creates }),
    ...createOrderHandlers({ orders: storage.orders, clock, creates }),
    ...createAccountHandlers({
      usage: storage.usage,
      recorder,
      keys,
      authenticator,
      deprecation: config.deprecation,
      requestLog: deps.requestLog,
      clock,
    }),
  };
}

/** Serves an API under its prefix, its stages registered in their order. */
async function registerApi<H>(
  app: FastifyInstance,
  prefix: string,
  stages: readonly Stage<H>[],
  deps: StageDeps<H>,
): Promise<void> {
  await app.register(
    async (scope) => {
      for (const stage of stages) stage.register(scope, deps);
    },
    { prefix },
  );
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
  const { requestLog } = deps;
  const app = createFastify(config, (answer) => {
    if (requestLog !== undefined) recordUnparsed(requestLog, clock, answer);
  });
  registerLogger(app, logger);
  registerValidators(app);
  registerJsonBodyParser(app);
  registerErrorHandling(app);
  recordServedRoutes(app);
  decorateRouteConfig(app);
  registerStandardHeaders(app);
  // Only addresses are believed of X-Forwarded-For; Fastify reads it only when TRUST_PROXY is set.
  if (config.trustProxy !== false && config.trustProxy !== 0) registerForwardedAddresses(app);
  // First of the hooks that follow a request, so that everything after it runs inside its span.
  deps.tracing?.register(app);
  registerRequestMetrics(app, metrics);
  if (config.accessLog) registerAccessLog(app, { logger, traceId: deps.tracing?.traceId });
  // Every answer of every path, before any scope registers: each X-Request-Id handed out can be found.
  if (requestLog !== undefined) registerRequestLog(app, { log: requestLog, clock });
  // Browsers of other origins may read the API and its documents, nothing else.
  await registerCors(app, { origins: config.corsOrigins, paths: [API_PREFIX, ...DOCUMENT_PATHS] });
  // After the standard headers, before any route: redirects and 421s of custom domains, and the TLS ask check.
  registerDomains(app, {
    registry: deps.domains.registry,
    ownHosts: deps.domains.ownHosts,
    operatorPaths: [ADMIN_PREFIX, CONSOLE_PATH, ...HEALTH_PATHS],
  });
  // Stored idempotent answers expire after 24 h; purging keeps the table bounded.
  const stopPurging = startPurging({ idempotency: storage.idempotency, clock, logger });
  app.addHook('onClose', async () => {
    stopPurging();
    await deps.domains.close();
    await deps.keyNotices.stop();
    // Before storage closes: the attempts under way are kept.
    await deps.webhooks.close();
    authenticator.stop();
    deps.adminAuthenticator.stop();
    // Counted usage reaches storage before it closes, and the request log's rows their store.
    await deps.recorder.stop();
    await deps.requestLog?.stop();
    await limiter.close();
    await storage.close();
    // Last: the spans of the requests drained above are sent.
    await deps.tracing?.shutdown();
  });
  try {
    await registerRoutes(app, deps);
  } catch (error) {
    // A part that cannot start (a build without its browser parts, say): release the storage, Redis and
    // timers, or their handles keep the process alive after it said why.
    await app.close();
    throw error;
  }
  return app;
}

/** Every route: the API's and the admin API's operations, the references, the console and the health checks. */
async function registerRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { config, storage, clock, metrics, relyingParty } = deps;
  await registerApi(app, API_PREFIX, API_STAGES, { ...deps, handlers: operationHandlers(deps) });
  const adminHandlers = createAdminHandlers({
    ...deps,
    domains: deps.domains.manager,
    audit: storage.audit,
    usage: storage.usage,
    rateLimit: config.rateLimit,
    tokens: deps.adminAuthenticator,
    adminTokens: storage.adminTokens,
    people: storage.people,
    tokenSignIn: config.consoleTokenSignIn,
    webhooks: deps.webhooks.manager,
  });
  await registerApi(app, ADMIN_PREFIX, ADMIN_STAGES, { ...deps, handlers: adminHandlers });

  registerDocs(
    app,
    [
      {
        title: 'Pet Store API reference',
        page: '/docs',
        spec: DOCUMENT_PATHS[0],
        document: buildOpenApiDocument({
          servers: config.publicUrls,
          environment: config.env,
          rateLimit: config.rateLimit,
          deprecation: config.deprecation,
          changelog: packageFile('CHANGELOG.md'),
          guides: GUIDES.map(({ slug, title, summary }) => ({ title, url: guideUrl(slug), summary })),
        }),
        tryIt: true,
      },
      {
        title: 'Pet Store admin API reference',
        page: '/docs/admin',
        spec: DOCUMENT_PATHS[1],
        document: buildAdminDocument({ rateLimit: config.rateLimit.admin, environment: config.env }),
      },
    ],
    packageBytes,
  );
  const pages = registerConsole(app, {
    version: API_VERSION,
    signIn: { provider: config.oidc?.providerName ?? null, token: config.consoleTokenSignIn },
  });
  if (relyingParty !== undefined)
    registerOidcSignIn(app, {
      relyingParty,
      people: storage.people,
      oidcLogins: storage.oidcLogins,
      sessions: deps.sessions,
      audit: storage.audit,
      pages,
      limitByAddress: (scope) => registerRateLimit(scope, (request) => deps.limiter.forAddress(request.ip)),
      clock,
      logger: deps.logger,
    });
  registerHealth(app, { checks: readinessChecks(deps), metrics });
}
