import type { Plan } from '../keys/index.js';

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
  /** Limits per admin token, on the admin API. */
  admin: Limits;
  /** Limits of each key budget's reads of its own request log (`GET /v1/key/requests`), apart from its plan's. */
  requestLogReads: Limits;
  ban: BanPolicy;
}

/**
 * Where counters and bans live: this process, or Redis shared by every instance, with what to do when Redis
 * cannot be reached: serve on per-instance limits (`open`) or answer 503 (`closed`).
 */
export type RateLimitStoreOptions =
  | { kind: 'memory' }
  | { kind: 'redis'; url: string; keyPrefix: string; fail: 'open' | 'closed' };

/** The limits of a key: its plan's, or its own for enterprise. */
export function limitsFor(policy: RateLimitPolicy, key: { plan: Plan; limits: Limits | null }): Limits {
  if (key.plan === 'enterprise') {
    // The schema guarantees enterprise keys have limits; a key without would be refused everything.
    return key.limits ?? { perMinute: 0, perDay: 0 };
  }
  return policy.plans[key.plan];
}
