import type { PetstoreError } from './errors.js';

/** Backoff settings, in milliseconds. */
export interface RetryPolicy {
  /** The first backoff ceiling; it doubles on each retry. */
  baseDelayMs: number;
  /** The cap on every delay, `Retry-After` included. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = { baseDelayMs: 500, maxDelayMs: 30_000 };

/** Retries after the first attempt, unless the caller says otherwise (DESIGN.md section 9). */
export const DEFAULT_MAX_RETRIES = 2;

const DELTA_SECONDS = /^\d+$/;

/**
 * The wait a `Retry-After` header asks for, in milliseconds from `now` (RFC 9110 section 10.2.3): either
 * delta-seconds or an HTTP-date. Undefined when the header is absent, malformed, negative or a date in the
 * past, so the caller falls back to its own backoff rather than retrying at once.
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (DELTA_SECONDS.test(text)) return Number(text) * 1000;
  // Every HTTP-date form names the day and month in letters; this keeps `Date.parse` from reading a
  // malformed number such as `1.5` or `-3` as a calendar date.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (!Number.isFinite(at) || at < now) return undefined;
  return at - now;
}

/**
 * Exponential backoff with full jitter: a uniform draw in `[0, min(cap, base * 2^attempt))`, so clients
 * that failed together do not retry together. `attempt` is 0 for the first retry.
 */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return random() * ceiling;
}

/**
 * Whether an error answer may be retried: rate limits (but not a ban, which only grows with every
 * refused request), an `Idempotency-Key` still in flight, and transient server failures. Every other 4xx
 * would fail the same way again. POSTs are safe to repeat because they keep their idempotency key.
 */
function isRetryable(error: PetstoreError): boolean {
  switch (error.status) {
    case 0:
      return error.code === 'connection_error';
    case 409:
      return error.code === 'idempotency_key_in_use';
    case 429:
      return error.code !== 'api_key_banned';
    case 500:
    case 502:
    case 503:
    case 504:
      return true;
    default:
      return false;
  }
}

/**
 * How long to wait before retry number `attempt` (0-based), or undefined to give up and throw: the
 * error is final, or the server asks for a wait longer than the cap (the caller should see that wait
 * rather than have the client block on it).
 */
export function retryDelay(
  error: PetstoreError,
  retryAfterMs: number | undefined,
  attempt: number,
  policy: RetryPolicy,
  random: () => number,
): number | undefined {
  if (!isRetryable(error)) return undefined;
  if (retryAfterMs !== undefined) return retryAfterMs <= policy.maxDelayMs ? retryAfterMs : undefined;
  return backoffDelay(attempt, policy, random);
}
