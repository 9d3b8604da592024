import { type Actor, type AuditAction, type AuditEntry, CLI_ACTOR } from '../audit/index.js';
import { type Clock, parseTimestamp, systemClock } from '../clock/index.js';
import { type ApiKey, SCOPES, type Scope } from '../contract/index.js';
import { type EventType, storedEvent, type TellingEntry } from '../webhooks/index.js';
import { displayPrefix, generateKey, keyDigest, randomBase62 } from './format.js';
import {
  type ApiKeyChange,
  type ApiKeyRecord,
  type ApiKeyRepository,
  type Environment,
  PLANS,
  type Plan,
} from './record.js';

/** The longest key name, in characters. */
export const KEY_NAME_MAX = 100;

/** The longest grace period of a rotation: 30 days. */
export const MAX_GRACE_MS = 30 * 86_400_000;

export interface CreateKeyInput {
  plan: Plan;
  name?: string;
  /** Required for enterprise keys, refused for every other plan. */
  limits?: { perMinute: number; perDay: number };
  /** When the key stops working; in the future. None: never. */
  expiresAt?: string | null;
  /** What the key may do; every scope when left out. */
  scopes?: readonly Scope[];
}

/** A key refused for a reason the operator can fix; its message says which. */
export class KeyInputError extends Error {
  override name = 'KeyInputError';
}

/** A change or rotation of a revoked key: it stays as it is. */
export class KeyRevokedError extends Error {
  override name = 'KeyRevokedError';
  constructor(readonly id: string) {
    super(`${id} is revoked: it can no longer be changed or rotated`);
  }
}

/**
 * A second rotation of a rotated key, or a change to its plan or limits: those belong to the budget it
 * shares with its successor, which now holds them.
 */
export class KeyRotatedError extends Error {
  override name = 'KeyRotatedError';
  constructor(
    readonly id: string,
    readonly successor: string,
    doing: 'rotated' | 'budget',
  ) {
    super(
      doing === 'rotated'
        ? `${id} was already rotated: its successor is ${successor}; rotate that one instead`
        : `${id} was rotated to ${successor}, which holds the plan and limits the two share: change ${successor} instead`,
    );
  }
}

/** A rotation of a key past its expiry: its successor would have to expire before it began, or never. */
export class KeyExpiredError extends Error {
  override name = 'KeyExpiredError';
  constructor(
    readonly id: string,
    expiresAt: string,
  ) {
    super(`${id} expired at ${expiresAt}: an expired key cannot be rotated; create a new key instead`);
  }
}

/** A key made now, with the key itself, which is shown once and never stored. */
export interface IssuedKey {
  record: ApiKeyRecord;
  key: string;
}

/**
 * The operator's side of API keys, one service for the CLI, the admin API and the first start: every
 * change is checked here and recorded in the audit log with its actor.
 */
export interface KeyManager {
  create(input: CreateKeyInput, actor?: Actor): Promise<IssuedKey>;
  /** Creates a key only if the storage holds none at all (the first start of a fresh database). */
  createFirst(input: CreateKeyInput, actor?: Actor): Promise<IssuedKey | undefined>;
  list(): Promise<ApiKeyRecord[]>;
  get(id: string): Promise<ApiKeyRecord | undefined>;
  /** Changes a key; undefined if no key has that id. @throws KeyRevokedError, KeyRotatedError, KeyInputError */
  update(id: string, change: ApiKeyChange, actor?: Actor): Promise<ApiKeyRecord | undefined>;
  /**
   * Issues a successor with the same plan, limits, scopes and budget; the old key works for `graceMs` more.
   * Undefined if no key has that id. A key is rotated once.
   * @throws KeyRevokedError, KeyRotatedError, KeyExpiredError, KeyInputError
   */
  rotate(
    id: string,
    graceMs: number,
    actor?: Actor,
  ): Promise<(IssuedKey & { previous: ApiKeyRecord }) | undefined>;
  /**
   * Revokes a key and every key rotated from it, its successors (the first revocation of each stands), each
   * audited; undefined if no key has that id. Answers each as read back after its change, the key first.
   */
  revoke(id: string, actor?: Actor): Promise<RevokedKeys | undefined>;
  /**
   * The keys rotated from a key that are not revoked yet, in the order they were made: what revoking it
   * revokes with it, to name before asking. Empty for a key never rotated, or one that does not exist.
   */
  successors(id: string): Promise<ApiKeyRecord[]>;
  /** Lifts the ban of a key's budget on every server within seconds; undefined if no key has that id. */
  unban(id: string, actor?: Actor): Promise<ApiKeyRecord | undefined>;
}

/** A revocation: the key revoked and its successors revoked with it, each as read back after its change. */
export interface RevokedKeys {
  record: ApiKeyRecord;
  successors: ApiKeyRecord[];
}

/** A public key id such as `key_3fK9x2LmQ8aZ`: random, so ids say nothing about how many keys exist. */
function newKeyId(): string {
  return `key_${randomBase62(12)}`;
}

/**
 * Characters a name may not hold: controls (a newline, or ESC starting a terminal escape sequence, would
 * rewrite what `keys list` shows), format characters (Unicode category Cf: the bidirectional marks,
 * overrides and isolates that make text display in another order than it is stored, zero-width and other
 * invisible characters, tag characters), and line and paragraph separators. Two names that look the same
 * are then the same.
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/**
 * The name a key or an admin token is stored under: 1 to 100 printable characters, not whitespace only.
 * @throws KeyInputError naming the rule
 */
export function checkName(name: string): string {
  if (name.trim().length === 0 || name.length > KEY_NAME_MAX) {
    throw new KeyInputError(`name must be 1 to ${KEY_NAME_MAX} characters, not whitespace only`);
  }
  if (!name.isWellFormed() || UNPRINTABLE.test(name)) {
    throw new KeyInputError(
      'name must not contain control or invisible characters (such as a newline, an escape sequence, a zero-width space or a bidirectional mark)',
    );
  }
  return name;
}

/** The limits of a key of `plan`: its own for enterprise (a day holds at least a minute), none otherwise. */
function checkLimits(plan: Plan, limits: ApiKeyRecord['limits'] | undefined): ApiKeyRecord['limits'] {
  if (plan === 'enterprise') {
    if (limits === undefined || limits === null) {
      throw new KeyInputError('enterprise keys need both a per-minute and a per-day limit');
    }
    if (limits.perDay < limits.perMinute) {
      throw new KeyInputError(
        `the per-day limit (${limits.perDay}) must be at least the per-minute limit (${limits.perMinute})`,
      );
    }
    return limits;
  }
  if (limits !== undefined && limits !== null) {
    throw new KeyInputError(`custom limits are for enterprise keys only; ${plan} keys use the plan's limits`);
  }
  return null;
}

/** A key's scopes in the contract's order, each once; every scope when none are given. */
function checkScopes(scopes: readonly Scope[] | undefined): readonly Scope[] {
  if (scopes === undefined) return SCOPES;
  const unknown = scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0)
    throw new KeyInputError(`unknown scope ${unknown.join(', ')}; scopes are ${SCOPES.join(', ')}`);
  if (scopes.length === 0) throw new KeyInputError('a key needs at least one scope');
  return SCOPES.filter((scope) => scopes.includes(scope));
}

/** Throws why `record` cannot be rotated at `now`: revoked, rotated already, or expired. */
function refuseRotation(record: ApiKeyRecord, now: number): void {
  if (record.revokedAt !== null) throw new KeyRevokedError(record.id);
  if (record.replacedBy !== null) throw new KeyRotatedError(record.id, record.replacedBy, 'rotated');
  if (record.expiresAt !== null && Date.parse(record.expiresAt) <= now) {
    throw new KeyExpiredError(record.id, record.expiresAt);
  }
}

/**
 * An expiry as an ISO 8601 UTC time; null for none. A new key's must be in the future; a key that exists
 * may be given one that is now or past, which ends it now (stored as now, so that it says when it ended).
 */
function checkExpiry(expiresAt: string | null | undefined, now: number, endsNow: boolean): string | null {
  if (expiresAt === undefined || expiresAt === null) return null;
  const at = parseTimestamp(expiresAt);
  if (at === undefined)
    throw new KeyInputError(
      `expiresAt (the expiry) must be a date and time that exists, such as 2027-01-31T00:00:00Z (got ${expiresAt.slice(0, 40)})`,
    );
  if (at > now) return new Date(at).toISOString();
  if (endsNow) return new Date(now).toISOString();
  throw new KeyInputError(`expiresAt (the expiry) must be in the future (got ${new Date(at).toISOString()})`);
}

export function createKeyManager(deps: {
  apiKeys: ApiKeyRepository;
  env: Environment;
  clock?: Clock;
  /**
   * A key as the admin API shows it. Given, a key's creation, rotation and revocation keep a webhook event
   * (`key.created`, `key.rotated`, `key.revoked`) with their audit entries, whose `data` it makes.
   */
  view?: (record: ApiKeyRecord) => ApiKey;
}): KeyManager {
  const { apiKeys, env, view } = deps;
  const clock = deps.clock ?? systemClock;
  const now = () => new Date(clock.now()).toISOString();
  const entry = (
    actor: Actor,
    action: AuditAction,
    target: string,
    details: Record<string, unknown>,
  ): AuditEntry => ({
    at: now(),
    actor,
    action,
    target,
    details,
  });

  /** `audit` with the webhook event of `type` about `record` as it is after the change, if events are kept. */
  const telling = (audit: AuditEntry, type: EventType, record: ApiKeyRecord): TellingEntry =>
    view === undefined ? audit : { ...audit, event: storedEvent(type, view(record), clock.now()) };

  /** A new key and its record, checked; nothing stored yet. */
  function mint(input: CreateKeyInput, inherit?: ApiKeyRecord): IssuedKey {
    if (!PLANS.includes(input.plan)) throw new KeyInputError(`plan must be one of ${PLANS.join(', ')}`);
    const key = generateKey(env);
    const id = newKeyId();
    const record: ApiKeyRecord = {
      id,
      name: checkName(input.name ?? 'unnamed'),
      plan: input.plan,
      limits: checkLimits(input.plan, input.limits),
      scopes: checkScopes(input.scopes),
      env,
      prefix: displayPrefix(key),
      digest: keyDigest(key),
      createdAt: now(),
      expiresAt: checkExpiry(input.expiresAt, clock.now(), false),
      revokedAt: null,
      replacedBy: null,
      budgetId: inherit?.budgetId ?? id,
      unbannedAt: null,
      bannedUntil: null,
      lastUsedAt: null,
    };
    return { record, key };
  }

  /** What the audit record says of a key: its settings, never its key or digest. */
  const settings = (record: ApiKeyRecord) => ({
    name: record.name,
    plan: record.plan,
    limits: record.limits,
    scopes: record.scopes,
    expiresAt: record.expiresAt,
  });

  return {
    async create(input, actor = CLI_ACTOR) {
      const issued = mint(input);
      await apiKeys.insert(
        issued.record,
        telling(
          entry(actor, 'key.created', issued.record.id, settings(issued.record)),
          'key.created',
          issued.record,
        ),
      );
      return issued;
    },
    async createFirst(input, actor = CLI_ACTOR) {
      const issued = mint(input);
      const audit = telling(
        entry(actor, 'key.created', issued.record.id, { ...settings(issued.record), first: true }),
        'key.created',
        issued.record,
      );
      return (await apiKeys.insertFirst(issued.record, audit)) ? issued : undefined;
    },
    list: () => apiKeys.list(),
    get: (id) => apiKeys.get(id),
    async update(id, change, actor = CLI_ACTOR) {
      const current = await apiKeys.get(id);
      if (current === undefined) return undefined;
      if (current.revokedAt !== null) throw new KeyRevokedError(id);
      const plan = change.plan ?? current.plan;
      if (!PLANS.includes(plan)) throw new KeyInputError(`plan must be one of ${PLANS.join(', ')}`);
      // A plan other than enterprise drops the key's own limits; enterprise keeps them unless given anew.
      const limits = checkLimits(
        plan,
        change.limits !== undefined ? change.limits : plan === 'enterprise' ? current.limits : null,
      );
      const budget =
        plan !== current.plan || JSON.stringify(limits) !== JSON.stringify(current.limits)
          ? { plan, limits }
          : {};
      const checked: ApiKeyChange = {
        ...(change.name !== undefined ? { name: checkName(change.name) } : {}),
        ...budget,
        ...(change.scopes !== undefined ? { scopes: checkScopes(change.scopes) } : {}),
        ...(change.expiresAt !== undefined
          ? { expiresAt: checkExpiry(change.expiresAt, clock.now(), true) }
          : {}),
      };
      if (current.replacedBy !== null && 'plan' in checked) {
        throw new KeyRotatedError(id, current.replacedBy, 'budget');
      }
      const changed = Object.fromEntries(
        Object.entries(checked).filter(
          ([field, value]) => JSON.stringify(value) !== JSON.stringify(current[field as keyof ApiKeyRecord]),
        ),
      );
      const updated = await apiKeys.update(id, checked, entry(actor, 'key.updated', id, changed));
      if (updated !== undefined) return updated;
      // Revoked or rotated since it was read: say which.
      const now = await apiKeys.get(id);
      if (now?.replacedBy != null && now.revokedAt === null) {
        throw new KeyRotatedError(id, now.replacedBy, 'budget');
      }
      throw new KeyRevokedError(id);
    },
    async rotate(id, graceMs, actor = CLI_ACTOR) {
      if (!Number.isInteger(graceMs) || graceMs < 0 || graceMs > MAX_GRACE_MS) {
        throw new KeyInputError('the grace period must be 0 to 30 days');
      }
      const previous = await apiKeys.get(id);
      if (previous === undefined) return undefined;
      const at = clock.now();
      refuseRotation(previous, at);
      // The successor keeps the old key's expiry, which is ahead: the check above refuses an expired key.
      const issued = mint(
        {
          plan: previous.plan,
          name: previous.name,
          ...(previous.limits !== null ? { limits: previous.limits } : {}),
          scopes: previous.scopes,
          expiresAt: previous.expiresAt,
        },
        previous,
      );
      // The old key ends at the end of the grace period, or at its own expiry if that comes first.
      const graceEnd = at + graceMs;
      const oldEnd =
        previous.expiresAt !== null && Date.parse(previous.expiresAt) < graceEnd
          ? previous.expiresAt
          : new Date(graceEnd).toISOString();
      const rotated = { ...previous, expiresAt: oldEnd, replacedBy: issued.record.id };
      const audit = telling(
        entry(actor, 'key.rotated', id, {
          successor: issued.record.id,
          gracePeriodSeconds: graceMs / 1000,
          oldKeyEndsAt: oldEnd,
        }),
        'key.rotated',
        rotated,
      );
      // Storage checks again in the same step as the rotation: of two rotations at once, one wins, and the
      // other is refused for what the winner did.
      if (!(await apiKeys.rotate(id, issued.record, oldEnd, new Date(at).toISOString(), audit))) {
        refuseRotation((await apiKeys.get(id)) ?? previous, at);
        throw new KeyRevokedError(id);
      }
      return { ...issued, previous: rotated };
    },
    async revoke(id, actor = CLI_ACTOR) {
      const at = now();
      /** The entry of one key's revocation; it tells of it only if the key was not revoked already. */
      const revocation = async (key: string, details: Record<string, unknown>) => {
        const audit = entry(actor, 'key.revoked', key, details);
        const before = await apiKeys.get(key);
        return before === undefined || before.revokedAt !== null
          ? audit
          : telling(audit, 'key.revoked', { ...before, revokedAt: at });
      };
      if (!(await apiKeys.revoke(id, at, await revocation(id, {})))) return undefined;
      const record = await apiKeys.get(id);
      if (record === undefined) return undefined;
      // A leaked key can rotate itself, and its successor again (K1 -> K2 -> K3): revoking K1 alone would leave
      // the thief's successors working. Each successor is read after the key before it is revoked, so a
      // rotation that raced this revocation either committed first (and is followed here) or was refused
      // (a revoked key cannot be rotated).
      const successors: ApiKeyRecord[] = [];
      const seen = new Set([id]);
      for (let next = record.replacedBy; next !== null && !seen.has(next); ) {
        seen.add(next);
        await apiKeys.revoke(next, at, await revocation(next, { successorOf: id }));
        const successor = await apiKeys.get(next);
        if (successor === undefined) break;
        successors.push(successor);
        next = successor.replacedBy;
      }
      return { record, successors };
    },
    async successors(id) {
      const chain: ApiKeyRecord[] = [];
      const seen = new Set([id]);
      for (let next = (await apiKeys.get(id))?.replacedBy ?? null; next !== null && !seen.has(next); ) {
        seen.add(next);
        const successor = await apiKeys.get(next);
        if (successor === undefined) break;
        if (successor.revokedAt === null) chain.push(successor);
        next = successor.replacedBy;
      }
      return chain;
    },
    async unban(id, actor = CLI_ACTOR) {
      if (!(await apiKeys.unban(id, now(), entry(actor, 'key.unbanned', id, {})))) return undefined;
      return apiKeys.get(id);
    },
  };
}
