import { type Clock, systemClock } from '../clock/index.js';
import type { Config } from '../config/index.js';
import { createAuthenticator } from '../keys/index.js';
import type { Logger } from '../log/index.js';
import { createMetrics } from '../metrics/index.js';
import { createRateLimiter, MemoryRateLimitStore, type RateLimitStore } from '../ratelimit/index.js';
import { createStorage } from '../storage/index.js';
import type { AppDeps } from './app.js';

/** What tests may replace; production uses the defaults. */
export interface ComposeOptions {
  clock?: Clock;
  rateLimitStore?: RateLimitStore;
}

/** The composition root: builds every dependency of the app once, from the configuration. */
export async function composeApp(
  config: Config,
  logger: Logger,
  options: ComposeOptions = {},
): Promise<AppDeps> {
  const clock = options.clock ?? systemClock;
  const storage = await createStorage(config.storage);
  try {
    const limiter = createRateLimiter({
      store: options.rateLimitStore ?? new MemoryRateLimitStore(),
      policy: config.rateLimit,
      clock,
      logger,
    });
    const authenticator = createAuthenticator({
      storage,
      env: config.env,
      logger,
      onUnban: (keyId) => limiter.unban(keyId),
    });
    await authenticator.start();
    return { config, logger, storage, authenticator, limiter, clock, metrics: createMetrics() };
  } catch (error) {
    await storage.close();
    throw error;
  }
}
