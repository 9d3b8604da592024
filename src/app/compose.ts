import { type Clock, systemClock } from '../clock/index.js';
import { type Config, readDomains } from '../config/index.js';
import { createDomainReloader } from '../domains/index.js';
import { createAuthenticator } from '../keys/index.js';
import type { Logger } from '../log/index.js';
import { createMetrics } from '../metrics/index.js';
import { createRateLimiter, createRateLimitStore, type RateLimitStore } from '../ratelimit/index.js';
import { createStorage } from '../storage/index.js';
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

/** The composition root: builds every dependency of the app once, from the configuration. */
export async function composeApp(
  config: Config,
  logger: Logger,
  options: ComposeOptions = {},
): Promise<AppDeps> {
  const clock = options.clock ?? clockOf(config);
  const metrics = createMetrics();
  const storage = await createStorage(config.storage);
  const store = options.rateLimitStore ?? createRateLimitStore(config, { logger, metrics });
  try {
    await store.connect();
    const limiter = createRateLimiter({
      store,
      policy: config.rateLimit,
      clock,
      logger,
      // Kept beside the key for `keys list`; a ban that could not be recorded still holds in the store.
      onBan: (keyId, until) => {
        storage.apiKeys
          .recordBan(keyId, new Date(until).toISOString())
          .catch((error: unknown) => logger.warn({ err: error, keyId }, 'could not record a ban'));
      },
    });
    const authenticator = createAuthenticator({
      storage,
      env: config.env,
      logger,
      onUnban: (keyId) => limiter.unban(keyId),
    });
    await authenticator.start();
    const domains = createDomainReloader({
      file: config.configFile,
      initial: config.domains,
      read: readDomains,
      logger,
    });
    return { config, logger, storage, authenticator, limiter, clock, metrics, domains };
  } catch (error) {
    await store.close();
    await storage.close();
    throw error;
  }
}
