/** The two fixed windows of every policy, aligned to the UTC minute and the UTC day (DESIGN.md section 4). */
export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** Start of the window of `size` ms that contains `now`. Unix time has no leap seconds, so UTC days align. */
export function windowStart(now: number, size: number): number {
  return now - (now % size);
}

/**
 * Whole seconds from `now` until `at`, rounded up and never below 1: a client that waits this long is past
 * the moment, and `Retry-After: 0` would invite an immediate retry.
 */
export function secondsUntil(at: number, now: number): number {
  return Math.max(1, Math.ceil((at - now) / 1000));
}
