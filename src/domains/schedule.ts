import type { CheckOutcome, DomainState } from './types.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** How long a verified domain may wait for its certificate before it counts as failed (spec section 1). */
export const CERTIFICATE_GRACE_MS = 30 * MINUTE;

/**
 * When a domain is checked again, by its state and how long it has been in it (docs/custom-domains.md, "Re-checks"):
 * - pending or misconfigured: every minute for the first hour (DNS changes mostly land within minutes), every
 *   10 minutes until a day has passed, hourly until a week has, then daily;
 * - verified: every minute, to see the certificate as soon as it is served, for the 30 minutes it has;
 * - certificate_failed: hourly, in case the certificate came late;
 * - active: daily, to notice DNS moved away or the certificate lapsed.
 * A check that could not be made (the resolver did not answer) is tried again in a minute.
 */
export function nextCheckDelay(state: DomainState, inStateMs: number, outcome: CheckOutcome | null): number {
  if (outcome === 'could_not_check') return MINUTE;
  switch (state) {
    case 'pending':
    case 'misconfigured':
      if (inStateMs < HOUR) return MINUTE;
      if (inStateMs < DAY) return 10 * MINUTE;
      if (inStateMs < 7 * DAY) return HOUR;
      return DAY;
    case 'verified':
      return MINUTE;
    case 'certificate_failed':
      return HOUR;
    case 'active':
      return DAY;
  }
}
