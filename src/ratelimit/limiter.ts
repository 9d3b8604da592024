import type { Clock } from '../clock/index.js';
import type { ApiKeyRecord } from '../keys/index.js';
import type { Logger } from '../log/index.js';
import { addressSubject } from './address.js';
import { type Limits, limitsFor, type RateLimitPolicy } from './policy.js';
import type { Decision, RateLimitStore, WindowState } from './store.js';

export interface RateLimiter {
  /** Counts a request of an authenticated key, in its budget (shared by the keys a rotation links). */
  forKey(key: ApiKeyRecord): Decision | Promise<Decision>;
  /**
   * The windows and ban of a key's budget, counting nothing: for the requests that spend no quota. A key
   * that is only limited is `allowed` here (its windows say it has nothing left); a banned one is `banned`.
   */
  peekKey(key: ApiKeyRecord): Decision | Promise<Decision>;
  /**
   * Counts a key's read of its own request log, in a window of its own (the `requestLogReads` policy): it
   * spends none of the key's plan, and no key can read the log's store without bound.
   */
  forRequestLogRead(key: ApiKeyRecord): Decision | Promise<Decision>;
  /** Counts a request without a valid key, per client address (the anonymous policy). */
  forAddress(address: string): Decision | Promise<Decision>;
  /** Counts a request of an admin token to the admin API (never banned). */
  forAdminToken(tokenId: string): Decision | Promise<Decision>;
  /** Lifts the ban of a key's budget. */
  unban(key: ApiKeyRecord): Promise<void>;
  /**
   * Starts the day window of a key's budget at `used` (its keys' requests stored for today), where the store
   * forgot it at a restart (the in-memory store); nothing where the store keeps it (Redis).
   */
  resumeDay(key: ApiKeyRecord, used: number): void;
  /** Resolves when the store can be reached. */
  ping(): Promise<void>;
  /** Releases the store. */
  close(): Promise<void>;
}

/**
 * The subject a key spends: its budget, which a rotation hands on, so old and new key share one set of
 * windows and one ban. A key never rotated is its own budget (`key:<id>`, as before budgets existed).
 */
function budgetSubject(key: ApiKeyRecord): string {
  return `key:${key.budgetId}`;
}

/**
 * Per-key limits by plan, per-address limits for everyone else, and bans for keys that keep sending after
 * 429. Only keys that authenticated get state of their own: an attacker trying random keys is counted by
 * address, so invented keys cannot grow memory.
 */
export function createRateLimiter(deps: {
  store: RateLimitStore;
  policy: RateLimitPolicy;
  clock: Clock;
  logger: Logger;
  /** Told when a budget's ban starts and until when (epoch ms), so operators can see it. */
  onBan?: (key: ApiKeyRecord, until: number) => void;
  /**
   * Told when a request takes a budget's day window to 80% or 100% of its limit: the one request that reaches
   * it, so once each a day (across instances too, since the store counts for all of them).
   */
  onDayThreshold?: (key: ApiKeyRecord, percent: 80 | 100, day: WindowState) => void;
}): RateLimiter {
  const { store, policy, clock, logger } = deps;
  // A key's subject and limits, made once per record (records are replaced when keys reload).
  const subjects = new WeakMap<ApiKeyRecord, { subject: string; limits: Limits }>();
  const subjectOf = (key: ApiKeyRecord) => {
    let known = subjects.get(key);
    if (known === undefined) {
      known = { subject: budgetSubject(key), limits: limitsFor(policy, key) };
      subjects.set(key, known);
    }
    return known;
  };

  /** What a decision tells beyond its answer: a ban that starts, a day window that reaches a threshold. */
  function tell(key: ApiKeyRecord, decision: Decision): Decision {
    if (decision.kind === 'allowed') {
      if (deps.onDayThreshold !== undefined) {
        const { day } = decision;
        const used = day.limit - day.remaining;
        if (used === day.limit) deps.onDayThreshold(key, 100, day);
        else if (used === Math.ceil(day.limit * 0.8)) deps.onDayThreshold(key, 80, day);
      }
      return decision;
    }
    if (decision.kind === 'limited' && decision.banStarted) {
      // On the store's clock, as the ban itself.
      const until = decision.now + policy.ban.durationMs;
      logger.warn(
        { keyId: key.id, plan: key.plan, until: new Date(until).toISOString() },
        'API key banned for sending after 429 answers',
      );
      deps.onBan?.(key, until);
    }
    return decision;
  }

  return {
    forKey(key) {
      const { subject, limits } = subjectOf(key);
      const decision = store.hit(subject, limits, clock.now(), policy.ban);
      return decision instanceof Promise
        ? decision.then((settled) => tell(key, settled))
        : tell(key, decision);
    },
    peekKey(key) {
      const { subject, limits } = subjectOf(key);
      return store.peek(subject, limits, clock.now());
    },
    forRequestLogRead(key) {
      return store.hit(`reads:${key.budgetId}`, policy.requestLogReads, clock.now(), null);
    },
    forAddress(address) {
      return store.hit(addressSubject(address), policy.anonymous, clock.now(), null);
    },
    forAdminToken(tokenId) {
      return store.hit(`admin:${tokenId}`, policy.admin, clock.now(), null);
    },
    resumeDay(key, used) {
      store.resumeDay?.(budgetSubject(key), used, clock.now());
    },
    async unban(key) {
      await store.unban(budgetSubject(key));
      logger.info({ keyId: key.id, budget: key.budgetId }, 'API key unbanned');
    },
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
