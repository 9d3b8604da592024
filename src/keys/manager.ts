import { type Clock, systemClock } from '../clock/index.js';
import { displayPrefix, generateKey, keyDigest, randomBase62 } from './format.js';
import { type ApiKeyRecord, type ApiKeyRepository, type Environment, PLANS, type Plan } from './record.js';

/** The longest key name, in characters. */
export const KEY_NAME_MAX = 100;

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
  /** Creates a key only if the storage holds none at all (the first start of a fresh database). */
  createFirst(input: CreateKeyInput): Promise<{ record: ApiKeyRecord; key: string } | undefined>;
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

/**
 * Characters a name may not hold: controls (a newline, or ESC starting a terminal escape sequence, would
 * rewrite what `keys list` shows), line and paragraph separators, and the bidirectional overrides and
 * isolates that make text display in another order than it is stored.
 */
const UNPRINTABLE = /[\p{Cc}\p{Zl}\p{Zp}\u202a-\u202e\u2066-\u2069]/u;

/** The name a key is stored under: 1 to 100 printable characters, not whitespace only. */
function checkName(name: string): string {
  if (name.trim().length === 0 || name.length > KEY_NAME_MAX) {
    throw new KeyInputError(`name must be 1 to ${KEY_NAME_MAX} characters, not whitespace only`);
  }
  if (!name.isWellFormed() || UNPRINTABLE.test(name)) {
    throw new KeyInputError(
      'name must not contain control characters (such as a newline or an escape sequence)',
    );
  }
  return name;
}

/** The limits of a key of `plan`: its own for enterprise (a day holds at least a minute), none otherwise. */
function checkLimits(plan: Plan, limits: CreateKeyInput['limits']): ApiKeyRecord['limits'] {
  if (plan === 'enterprise') {
    if (limits === undefined)
      throw new KeyInputError('enterprise keys need both a per-minute and a per-day limit');
    if (limits.perDay < limits.perMinute) {
      throw new KeyInputError(
        `the per-day limit (${limits.perDay}) must be at least the per-minute limit (${limits.perMinute})`,
      );
    }
    return limits;
  }
  if (limits !== undefined) {
    throw new KeyInputError(`custom limits are for enterprise keys only; ${plan} keys use the plan's limits`);
  }
  return null;
}

/** The operator's side of API keys: create, list, revoke, unban (the CLI, and the first start). */
export function createKeyManager(deps: {
  apiKeys: ApiKeyRepository;
  env: Environment;
  clock?: Clock;
}): KeyManager {
  const { apiKeys, env } = deps;
  const clock = deps.clock ?? systemClock;
  const now = () => new Date(clock.now()).toISOString();

  /** A new key and its record, checked; nothing stored yet. */
  function mint(input: CreateKeyInput): { record: ApiKeyRecord; key: string } {
    if (!PLANS.includes(input.plan)) throw new KeyInputError(`plan must be one of ${PLANS.join(', ')}`);
    const limits = checkLimits(input.plan, input.limits);
    const name = checkName(input.name ?? 'unnamed');
    const key = generateKey(env);
    const record: ApiKeyRecord = {
      id: newKeyId(),
      name,
      plan: input.plan,
      limits,
      env,
      prefix: displayPrefix(key),
      digest: keyDigest(key),
      createdAt: now(),
      revokedAt: null,
      unbannedAt: null,
      bannedUntil: null,
    };
    return { record, key };
  }

  return {
    async create(input) {
      const created = mint(input);
      await apiKeys.insert(created.record);
      return created;
    },
    async createFirst(input) {
      const created = mint(input);
      return (await apiKeys.insertFirst(created.record)) ? created : undefined;
    },
    list: () => apiKeys.list(),
    revoke: (id) => apiKeys.revoke(id, now()),
    unban: (id) => apiKeys.unban(id, now()),
  };
}
