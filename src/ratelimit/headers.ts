import type { Decision, WindowState } from './store.js';
import { secondsUntil } from './windows.js';

/**
 * The window a client should heed: the one with the fewest requests left; on a tie, the one that resets
 * first (DESIGN.md section 4).
 */
export function bindingWindow(
  minute: WindowState,
  day: WindowState,
): { name: 'minute' | 'day'; window: WindowState } {
  // An exhausted day outlasts any minute: it binds even when the minute is exhausted too, so Reset agrees
  // with Retry-After.
  if (day.remaining === 0) return { name: 'day', window: day };
  if (minute.remaining !== day.remaining) {
    return minute.remaining < day.remaining
      ? { name: 'minute', window: minute }
      : { name: 'day', window: day };
  }
  return minute.resetAt <= day.resetAt ? { name: 'minute', window: minute } : { name: 'day', window: day };
}

/** Policies already written, by their two quotas: as many as there are plans and enterprise limits. */
const policies = new Map<number, Map<number, string>>();

/**
 * `RateLimit-Policy` (IETF draft-ietf-httpapi-ratelimit-headers): both windows, quota and width in seconds.
 * The same few strings serve every request, so each is built once rather than per answer.
 */
export function policyHeader(minute: WindowState, day: WindowState): string {
  let byDay = policies.get(minute.limit);
  if (byDay === undefined) {
    byDay = new Map();
    policies.set(minute.limit, byDay);
  }
  let policy = byDay.get(day.limit);
  if (policy === undefined) {
    policy = `"minute";q=${minute.limit};w=60, "day";q=${day.limit};w=86400`;
    byDay.set(day.limit, policy);
  }
  return policy;
}

/**
 * The rate-limit headers of an answer: `X-RateLimit-*` (GitHub's meaning: `Reset` in Unix seconds) for the
 * binding window, and the IETF draft's `RateLimit` and `RateLimit-Policy`. While a key is banned, nothing
 * is left until the ban ends.
 */
export function rateLimitHeaders(decision: Decision): Record<string, string> {
  const { now } = decision;
  const { name, window } = bindingWindow(decision.minute, decision.day);
  const banned = decision.kind === 'banned';
  const remaining = banned ? 0 : window.remaining;
  const resetAt = banned ? Math.max(decision.until, window.resetAt) : window.resetAt;
  const resetIn = Math.max(0, Math.ceil((resetAt - now) / 1000));
  return {
    'x-ratelimit-limit': String(window.limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(Math.ceil(resetAt / 1000)),
    'ratelimit-policy': policyHeader(decision.minute, decision.day),
    ratelimit: `"${name}";r=${remaining};t=${resetIn}`,
  };
}

/** `Retry-After` of a refused request, in whole seconds, at least 1; undefined when it was admitted. */
export function retryAfterSeconds(decision: Decision): number | undefined {
  const { now } = decision;
  switch (decision.kind) {
    case 'allowed':
      return undefined;
    case 'limited':
      return secondsUntil(decision.retryAt, now);
    case 'banned':
      return secondsUntil(decision.until, now);
  }
}
