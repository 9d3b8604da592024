import { createOutageLog, type Logger, printableUrl } from '../log/index.js';
import { type Metrics, timed } from '../metrics/index.js';
import type { Tracing } from '../tracing/index.js';
import { FailoverRateLimitStore } from './failover-store.js';
import { MemoryRateLimitStore } from './memory-store.js';
import type { RateLimitStoreOptions } from './policy.js';
import { RedisRateLimitStore } from './redis-store.js';
import type { RateLimitStore } from './store.js';

export { FailoverRateLimitStore } from './failover-store.js';
export { rateLimitHeaders, retryAfterSeconds } from './headers.js';
export { registerRateLimit } from './hook.js';
export { createRateLimiter, type RateLimiter } from './limiter.js';
export { MemoryRateLimitStore } from './memory-store.js';
export { type Limits, limitsFor, type RateLimitPolicy, type RateLimitStoreOptions } from './policy.js';
export { RedisRateLimitStore } from './redis-store.js';
export type { Decision, RateLimitStore } from './store.js';

/** The store the options name: this process's memory, or Redis behind the failure policy. */
export function createRateLimitStore(
  options: RateLimitStoreOptions,
  deps: { logger: Logger; metrics: Metrics; tracing?: Tracing | undefined },
): RateLimitStore {
  if (options.kind === 'memory') return new MemoryRateLimitStore();
  return new FailoverRateLimitStore({
    primary: timed(
      new RedisRateLimitStore({ url: options.url, keyPrefix: options.keyPrefix }),
      ['hit', 'peek', 'unban'],
      deps.metrics.redisCalls,
      { spans: deps.tracing?.callSpans('redis', 'redis') },
    ),
    fallback: new MemoryRateLimitStore(),
    mode: options.fail,
    outage: createOutageLog({
      logger: deps.logger,
      dependency: 'Redis',
      address: printableUrl(options.url),
      meanwhile:
        options.fail === 'open'
          ? "serving on each instance's own limits (RATE_LIMIT_FAIL=open)"
          : 'refusing requests with 503 (RATE_LIMIT_FAIL=closed)',
    }),
    failOpenCounter: deps.metrics.rateLimitFailOpen,
  });
}
