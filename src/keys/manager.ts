import { type Clock, systemClock } from '../clock/index.js';
import type { ApiKeyRecord, Environment, Plan, Storage } from '../storage/index.js';
import { displayPrefix, generateKey, keyDigest, randomBase62 } from './format.js';

export const PLANS: readonly Plan[] = ['free', 'pro', 'business', 'enterprise'];

export interface CreateKeyInput {
  plan: Plan;
  name?: string;
  /** Required for enterprise keys, refused for every other plan. */
  limits?: { perMinute: number; perDay: number };
}

/** A key refused for a reason the operator can fix; its message says which. */
export class KeyInputError extends Error {
  override name = 'KeyInputError';
}

export interface KeyManager {
  /** Creates a key and returns its record and the key itself, which is shown once and never stored. */
  create(input: CreateKeyInput): Promise<{ record: ApiKeyRecord; key: string }>;
  list(): Promise<ApiKeyRecord[]>;
  /** Revokes a key; false if no key has that id. */
  revoke(id: string): Promise<boolean>;
  /** Lifts a key's ban on every server within seconds; false if no key has that id. */
  unban(id: string): Promise<boolean>;
}

/** A public key id such as `key_3fK9x2LmQ8aZ`: random, so ids say nothing about how many keys exist. */
function newKeyId(): string {
  return `key_${randomBase62(12)}`;
}

/** The operator's side of API keys: create, list, revoke (the CLI). */
export function createKeyManager(deps: { storage: Storage; env: Environment; clock?: Clock }): KeyManager {
  const { storage, env } = deps;
  const clock = deps.clock ?? systemClock;
  const now = () => new Date(clock.now()).toISOString();
  return {
    async create(input) {
      if (!PLANS.includes(input.plan)) throw new KeyInputError(`plan must be one of ${PLANS.join(', ')}`);
      if (input.plan === 'enterprise' && input.limits === undefined) {
        throw new KeyInputError('enterprise keys need both --per-minute and --per-day');
      }
      if (input.plan !== 'enterprise' && input.limits !== undefined) {
        throw new KeyInputError(
          `custom limits are for enterprise keys only; ${input.plan} keys use the plan's limits`,
        );
      }
      const name = input.name ?? 'unnamed';
      if (name.trim().length === 0 || name.length > 100)
        throw new KeyInputError('name must be 1 to 100 characters');
      const key = generateKey(env);
      const record: ApiKeyRecord = {
        id: newKeyId(),
        name,
        plan: input.plan,
        limits: input.limits ?? null,
        env,
        prefix: displayPrefix(key),
        digest: keyDigest(key),
        createdAt: now(),
        revokedAt: null,
        unbannedAt: null,
      };
      await storage.apiKeys.insert(record);
      return { record, key };
    },
    list: () => storage.apiKeys.list(),
    revoke: (id) => storage.apiKeys.revoke(id, now()),
    unban: (id) => storage.apiKeys.unban(id, now()),
  };
}
