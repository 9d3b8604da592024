import type { Config } from '../config/index.js';
import type { Logger } from '../log/index.js';
import type { Metrics } from '../metrics/index.js';
import { FailoverRateLimitStore } from './failover-store.js';
import { MemoryRateLimitStore } from './memory-store.js';
import { RedisRateLimitStore } from './redis-store.js';
import type { RateLimitStore } from './store.js';

export { FailoverRateLimitStore } from './failover-store.js';
export { rateLimitHeaders, retryAfterSeconds } from './headers.js';
export { registerRateLimit } from './hook.js';
export { createRateLimiter, type RateLimiter } from './limiter.js';
export { MemoryRateLimitStore } from './memory-store.js';
export { type BanPolicy, DEFAULT_POLICY, type Limits, type RateLimitPolicy } from './policy.js';
export { RedisRateLimitStore } from './redis-store.js';
export type { Decision, RateLimitStore, WindowState } from './store.js';

/** The store the configuration names: this process's memory, or Redis behind the failure policy. */
export function createRateLimitStore(
  config: Config,
  deps: { logger: Logger; metrics: Metrics },
): RateLimitStore {
  if (config.rateLimitStore.kind === 'memory') return new MemoryRateLimitStore();
  return new FailoverRateLimitStore({
    primary: new RedisRateLimitStore({
      url: config.rateLimitStore.url,
      keyPrefix: config.rateLimitStore.keyPrefix,
    }),
    fallback: new MemoryRateLimitStore(),
    mode: config.rateLimitFail,
    logger: deps.logger,
    failOpenCounter: deps.metrics.rateLimitFailOpen,
  });
}
