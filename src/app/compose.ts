import { createCategoryService } from '../categories/index.js';
import { type Clock, systemClock } from '../clock/index.js';
import { type Config, ConfigError, readConfigFile } from '../config/index.js';
import { type DomainsConfig, ownHosts, parseDomains, startDomains } from '../domains/index.js';
import { createIdempotentCreates } from '../idempotency/index.js';
import {
  createAdminAuthenticator,
  createAdminTokenManager,
  createSessions,
  personRecheck,
} from '../identity/index.js';
import {
  type ApiKeyRecord,
  createAuthenticator,
  createKeyManager,
  type ExpiryNotices,
  keyView,
  startExpiryNotices,
} from '../keys/index.js';
import { createOutageLog, type Logger, printableUrl, warnUnlessOutage } from '../log/index.js';
import { createMetrics, type Metrics, timed } from '../metrics/index.js';
import { createRelyingParty } from '../people/index.js';
import {
  createRateLimiter,
  createRateLimitStore,
  limitsFor,
  type RateLimiter,
  type RateLimitStore,
} from '../ratelimit/index.js';
import { createRequestLog, type RequestLog } from '../request-log/index.js';
import { createStorage, openRequestLogStore, REPOSITORY_NAMES, type Storage } from '../storage/index.js';
import { createTracing, type Tracing } from '../tracing/index.js';
import { createUsageRecorder } from '../usage/index.js';
import {
  type EventType,
  type StoredEvent,
  startWebhooks,
  storedEvent,
  type Webhooks,
} from '../webhooks/index.js';
import type { AppDeps } from './app.js';

/** What tests may replace; production uses the defaults. */
export interface ComposeOptions {
  clock?: Clock;
  rateLimitStore?: RateLimitStore;
}

/** This machine's clock, moved by `PETSTORE_CLOCK_OFFSET_MS` (a testing aid for clock skew). */
function clockOf(config: Config): Clock {
  const offset = config.clockOffsetMs;
  return offset === 0 ? systemClock : { now: () => Date.now() + offset };
}

/** Re-reads the domains of the config file, for reloading them while serving; problems name the field. */
function readDomains(file: string): { value: DomainsConfig | undefined; problems: string[] } {
  const read = readConfigFile(file);
  return read.problems.length > 0
    ? { value: undefined, problems: read.problems }
    : parseDomains(read.value.domains);
}

/**
 * Storage with its calls timed (`petstore_storage_call_duration_seconds`, labelled `pets.list`, `create`),
 * each in a span of its own while a request is traced.
 */
function timedStorage(storage: Storage, metrics: Metrics, tracing: Tracing | undefined): Storage {
  const spans = tracing?.callSpans('storage', storage.kind === 'postgres' ? 'postgresql' : 'sqlite');
  const outer = timed(storage, ['create', 'ping'], metrics.storageCalls, { spans });
  for (const name of REPOSITORY_NAMES) {
    Object.defineProperty(outer, name, {
      value: timed(storage[name], 'all', metrics.storageCalls, { prefix: `${name}.`, spans }),
    });
  }
  return outer;
}

/** The request log, started, where the configuration keeps it; undefined when `REQUEST_LOG=off`. */
async function openRequestLog(
  config: Config,
  deps: { clock: Clock; logger: Logger; metrics: Metrics },
): Promise<RequestLog | undefined> {
  if (config.requestLog === undefined) return undefined;
  const { metrics } = deps;
  const log = createRequestLog({
    store: await openRequestLogStore(config.storage),
    ...deps,
    ...config.requestLog,
    counted: (outcome, rows) => metrics.requestLogRows.inc({ outcome }, rows),
  });
  metrics.watchRequestLog(log.backlog);
  log.start();
  return log;
}

/**
 * Starts the day windows of the rate limiter where it forgot them (limits counted in this process's
 * memory): each key budget at the requests its keys made today, as storage counted them (429s aside, as the
 * window counts). Without it a restart gave every key its whole day again, and the key's page (the window)
 * and the console (storage) disagreed on today's use.
 */
async function resumeDayWindows(deps: { storage: Storage; limiter: RateLimiter; clock: Clock }) {
  const { storage, limiter, clock } = deps;
  const today = new Date(clock.now()).toISOString().slice(0, 10);
  const [used, keys] = await Promise.all([storage.usage.keysOn(today, 1_000_000), storage.apiKeys.list()]);
  const byId = new Map(keys.map((key) => [key.id, key]));
  const budgets = new Map<string, { key: ApiKeyRecord; used: number }>();
  for (const counts of used) {
    const key = byId.get(counts.keyId);
    if (key === undefined) continue;
    const spent = counts.success + counts.clientErrors + counts.serverErrors;
    const budget = budgets.get(key.budgetId);
    if (budget === undefined) budgets.set(key.budgetId, { key, used: spent });
    else budget.used += spent;
  }
  for (const { key, used: spent } of budgets.values()) limiter.resumeDay(key, spent);
}

/** The composition root: builds every dependency of the app once, from the configuration. */
export async function composeApp(
  config: Config,
  logger: Logger,
  options: ComposeOptions = {},
): Promise<AppDeps> {
  // Checked before anything opens, as the rest of the configuration is: a bad domain stops the start.
  const initialDomains = parseDomains(config.domains);
  if (initialDomains.problems.length > 0) {
    throw new ConfigError(`Invalid configuration: ${initialDomains.problems.join('; ')}`);
  }
  const clock = options.clock ?? clockOf(config);
  const metrics = createMetrics();
  const tracing = config.tracing === undefined ? undefined : createTracing(config.tracing, logger);
  let storage: Storage;
  try {
    const outage =
      config.storage.kind === 'postgres'
        ? createOutageLog({ logger, dependency: 'PostgreSQL', address: printableUrl(config.storage.url) })
        : undefined;
    storage = timedStorage(
      await createStorage(config.storage, outage === undefined ? {} : { outage }),
      metrics,
      tracing,
    );
  } catch (error) {
    await tracing?.shutdown();
    throw error;
  }
  if (storage.poolStats !== undefined) metrics.watchPool(storage.poolStats);
  let requestLog: RequestLog | undefined;
  let webhooks: Webhooks | undefined;
  let keyNotices: ExpiryNotices | undefined;
  const store =
    options.rateLimitStore ?? createRateLimitStore(config.rateLimitStore, { logger, metrics, tracing });
  /** A key as the admin API shows it, and the `data` of the operator events below: made here alone. */
  const shownKey = (key: ApiKeyRecord) => keyView(key, clock.now(), limitsFor(config.rateLimit, key));
  /** Keeps an event in a transaction of its own, and has it sent now if an endpoint takes it. */
  const publish = async (event: StoredEvent) => {
    const kept = await storage.webhooks.publish(event);
    if (kept > 0) webhooks?.dispatcher.wake();
    return kept;
  };
  /**
   * An operator event that no change of ours carries in its transaction (a ban and a day window live in the
   * rate limiter's store). One that cannot be kept is logged, never a request's failure.
   */
  const tell = (type: EventType, data: unknown) => {
    publish(storedEvent(type, data, clock.now())).catch((error: unknown) =>
      warnUnlessOutage(logger, error, 'could not keep a webhook event', { type }),
    );
  };
  try {
    await store.connect();
    const limiter = createRateLimiter({
      store,
      policy: config.rateLimit,
      clock,
      logger,
      // Kept beside the keys for operators; a ban that could not be recorded still holds in the store.
      onBan: (key, until) => {
        const bannedUntil = new Date(until).toISOString();
        storage.apiKeys.recordBan(key.budgetId, bannedUntil).then(
          () => tell('key.banned', shownKey({ ...key, bannedUntil })),
          (error: unknown) => warnUnlessOutage(logger, error, 'could not record a ban', { keyId: key.id }),
        );
      },
      onDayThreshold: (key, percent, day) =>
        tell('key.usage_threshold', {
          ...shownKey(key),
          usage: {
            window: 'day',
            threshold: percent,
            used: day.limit - day.remaining,
            limit: day.limit,
            resetsAt: new Date(day.resetAt).toISOString(),
          },
        }),
    });
    const authenticator = createAuthenticator({
      apiKeys: storage.apiKeys,
      env: config.env,
      logger,
      onReload: () => metrics.keyReloads.inc(),
      onUnban: (key) => limiter.unban(key),
    });
    await authenticator.start();
    const adminAuthenticator = createAdminAuthenticator({
      adminTokens: storage.adminTokens,
      version: () => storage.apiKeys.version(),
      logger,
    });
    await adminAuthenticator.start();
    if (store.resumeDay !== undefined) await resumeDayWindows({ storage, limiter, clock });
    const recorder = createUsageRecorder({ usage: storage.usage, clock, logger });
    recorder.start();
    requestLog = await openRequestLog(config, { clock, logger, metrics });
    const domains = await startDomains({
      repository: storage.domains,
      watch: (notify) => storage.watchDomains(notify),
      options: config.domainChecks,
      file: { path: config.configFile, initial: initialDomains.value, read: readDomains },
      ownHosts: ownHosts(config),
      clock,
      logger,
    });
    metrics.watchDomains(() => domains.registry.current().counts());
    webhooks = startWebhooks({
      repository: storage.webhooks,
      options: config.webhooks,
      clock,
      logger,
      answered: () => metrics.answers.count,
    });
    keyNotices = startExpiryNotices({ apiKeys: storage.apiKeys, publish, view: shownKey, clock, logger });
    const keys = createKeyManager({ apiKeys: storage.apiKeys, env: config.env, clock, view: shownKey });
    const categories = createCategoryService({ categories: storage.categories });
    // Another instance's write makes our cached list stale: PostgreSQL tells us (LISTEN/NOTIFY).
    await storage.watchCategories(() => categories.invalidate());
    const relyingParty = config.oidc === undefined ? undefined : createRelyingParty(config.oidc, logger);
    const sessions = createSessions({
      sessions: storage.sessions,
      tokenById: (id) => adminAuthenticator.byId(id),
      recheckToken: (id) => adminAuthenticator.recheckId(id),
      people: storage.people,
      recheck: relyingParty === undefined ? undefined : personRecheck(relyingParty),
      clock,
    });
    return {
      config,
      logger,
      storage,
      authenticator,
      adminAuthenticator,
      limiter,
      recorder,
      clock,
      metrics,
      tracing,
      domains,
      requestLog,
      webhooks,
      keyNotices,
      keys,
      keyView: shownKey,
      categories,
      creates: createIdempotentCreates({ storage, clock, published: () => webhooks?.dispatcher.wake() }),
      sessions,
      relyingParty,
      tokenManager: createAdminTokenManager({ adminTokens: storage.adminTokens, clock }),
    };
  } catch (error) {
    await keyNotices?.stop();
    await webhooks?.close();
    await requestLog?.stop();
    await store.close();
    await storage.close();
    await tracing?.shutdown();
    throw error;
  }
}
