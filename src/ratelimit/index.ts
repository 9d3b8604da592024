export { bindingWindow, policyHeader, rateLimitHeaders, retryAfterSeconds } from './headers.js';
export { registerRateLimit } from './hook.js';
export { createRateLimiter, type RateLimiter } from './limiter.js';
export { MemoryRateLimitStore } from './memory-store.js';
export { type BanPolicy, DEFAULT_POLICY, type Limits, limitsFor, type RateLimitPolicy } from './policy.js';
export type { Decision, RateLimitStore, WindowState } from './store.js';
export { DAY_MS, MINUTE_MS, secondsUntil, windowStart } from './windows.js';
