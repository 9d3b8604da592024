import type { Clock } from '../clock/index.js';
import type { ApiKeyRecord } from '../keys/index.js';
import type { Logger } from '../log/index.js';
import { addressSubject } from './address.js';
import { type Limits, limitsFor, type RateLimitPolicy } from './policy.js';
import type { Decision, RateLimitStore } from './store.js';

export interface RateLimiter {
  /** Counts a request of an authenticated key. */
  forKey(key: ApiKeyRecord): Decision | Promise<Decision>;
  /** Counts a request without a valid key, per client address (the anonymous policy). */
  forAddress(address: string): Decision | Promise<Decision>;
  /** Lifts a key's ban. */
  unban(keyId: string): Promise<void>;
  /** Resolves when the store can be reached. */
  ping(): Promise<void>;
  /** Releases the store. */
  close(): Promise<void>;
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
  /** Told when a key's ban starts and until when (epoch ms), so operators can see it. */
  onBan?: (keyId: string, until: number) => void;
}): RateLimiter {
  const { store, policy, clock, logger } = deps;
  // A key's subject and limits, made once per record (records are replaced when keys reload).
  const subjects = new WeakMap<ApiKeyRecord, { subject: string; limits: Limits }>();
  const subjectOf = (key: ApiKeyRecord) => {
    let known = subjects.get(key);
    if (known === undefined) {
      known = { subject: `key:${key.id}`, limits: limitsFor(policy, key) };
      subjects.set(key, known);
    }
    return known;
  };

  function logBan(key: ApiKeyRecord, decision: Decision): Decision {
    if (decision.kind === 'limited' && decision.banStarted) {
      // On the store's clock, as the ban itself.
      const until = decision.now + policy.ban.durationMs;
      logger.warn(
        { keyId: key.id, plan: key.plan, until: new Date(until).toISOString() },
        'API key banned for sending after 429 answers',
      );
      deps.onBan?.(key.id, until);
    }
    return decision;
  }

  return {
    forKey(key) {
      const { subject, limits } = subjectOf(key);
      const decision = store.hit(subject, limits, clock.now(), policy.ban);
      return decision instanceof Promise
        ? decision.then((settled) => logBan(key, settled))
        : logBan(key, decision);
    },
    forAddress(address) {
      return store.hit(addressSubject(address), policy.anonymous, clock.now(), null);
    },
    async unban(keyId) {
      await store.unban(`key:${keyId}`);
      logger.info({ keyId }, 'API key unbanned');
    },
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
