import type { Plan } from '../storage/index.js';

/** Requests admitted per UTC minute and per UTC day. */
export interface Limits {
  perMinute: number;
  perDay: number;
}

export interface BanPolicy {
  /** Refused requests within one window that ban the key. */
  after: number;
  /** How long a ban lasts, in milliseconds. */
  durationMs: number;
}

export interface RateLimitPolicy {
  /** Limits per plan; enterprise keys carry their own. */
  plans: Record<Exclude<Plan, 'enterprise'>, Limits>;
  /** Limits per client address for requests without a valid key. */
  anonymous: Limits;
  ban: BanPolicy;
}

/** The spec's plan table (section 8) and DESIGN.md section 4's ban and anonymous defaults. */
export const DEFAULT_POLICY: RateLimitPolicy = {
  plans: {
    free: { perMinute: 60, perDay: 1_000 },
    pro: { perMinute: 300, perDay: 10_000 },
    business: { perMinute: 1_000, perDay: 100_000 },
  },
  anonymous: { perMinute: 60, perDay: 1_000 },
  ban: { after: 60, durationMs: 15 * 60_000 },
};

/** The limits of a key: its plan's, or its own for enterprise. */
export function limitsFor(policy: RateLimitPolicy, key: { plan: Plan; limits: Limits | null }): Limits {
  if (key.plan === 'enterprise') {
    // The schema guarantees enterprise keys have limits; a key without would be refused everything.
    return key.limits ?? { perMinute: 0, perDay: 0 };
  }
  return policy.plans[key.plan];
}
