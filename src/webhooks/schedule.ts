/**
 * How long after each failed attempt the next one goes (docs/webhooks.md, "Retries"): the first retry after
 * 5 seconds, then 5 minutes, 30 minutes, 2, 5, 10, 14, 20 and 20 hours. Ten attempts in all, the last about
 * three days (71.6 hours) after the first, Stripe's window; the early ones close together, for a receiver that
 * was restarting, the late ones far apart, for one that is down for a day.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  20 * 3_600_000,
];

/** Attempts a delivery gets before it is given up: the first and one for each delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** Each delay is stretched or shrunk by up to a tenth, so that retries of one outage do not arrive as one. */
const JITTER = 0.1;

/**
 * When the attempt after `attempts` failed ones goes, or undefined when that was the last. `random` is in
 * [0, 1), as `Math.random`'s; a test passes its own to see the bounds.
 */
export function nextAttemptAt(
  attempts: number,
  failedAt: number,
  random: () => number = Math.random,
  /** {@link RETRY_DELAYS_MS} unless the service is configured otherwise (`WEBHOOKS_RETRY_DELAYS_MS`, for tests). */
  delays: readonly number[] = RETRY_DELAYS_MS,
): number | undefined {
  const delay = delays[attempts - 1];
  if (delay === undefined) return undefined;
  return failedAt + Math.round(delay * (1 - JITTER + 2 * JITTER * random()));
}
