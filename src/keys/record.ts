import type { AuditEntry } from '../audit/index.js';
import { PLAN_NAMES, type PlanName, type Scope } from '../contract/index.js';

/** The plans of the spec's rate-limit table (section 8). */
export type Plan = PlanName;
export const PLANS: readonly Plan[] = PLAN_NAMES;

/** Where a key is valid: `ps_live_` keys in production, `ps_test_` keys in staging. */
export type Environment = 'production' | 'staging';

/** An API key as stored: everything but the key itself, of which only the SHA-256 digest is kept. */
export interface ApiKeyRecord {
  /** Public id, used by `keys revoke` and in logs. */
  id: string;
  name: string;
  plan: Plan;
  /** Per-key limits; set for enterprise keys only. */
  limits: { perMinute: number; perDay: number } | null;
  /** What the key may do, in the contract's order. */
  scopes: readonly Scope[];
  env: Environment;
  /** The first characters of the key, for people to tell keys apart. */
  prefix: string;
  /** base64url SHA-256 of the key. */
  digest: string;
  createdAt: string;
  /** When the key stops working (its own expiry, or the end of a rotation's grace period). */
  expiresAt: string | null;
  revokedAt: string | null;
  /** The key that replaced it by rotation, if any. */
  replacedBy: string | null;
  /**
   * The rate-limit budget the key spends: its own id, or the one of the key it was rotated from, so that a
   * rotation shares windows and bans with the key it replaces.
   */
  budgetId: string;
  /** When `keys unban` last lifted a ban of this key. */
  unbannedAt: string | null;
  /** When the ban the limiter last put on this key ends; null when none was recorded or it was lifted. */
  bannedUntil: string | null;
  /** The last request made with the key, as last flushed (to within a few seconds). */
  lastUsedAt: string | null;
}

/** The fields a change may set; the others stay as they are. */
export interface ApiKeyChange {
  name?: string;
  plan?: Plan;
  limits?: { perMinute: number; perDay: number } | null;
  scopes?: readonly Scope[];
  expiresAt?: string | null;
}

/**
 * Where keys are kept: the storage implements it; nothing here knows which. Every change is appended to the
 * audit record in the same transaction, so neither is ever written without the other.
 */
export interface ApiKeyRepository {
  insert(record: ApiKeyRecord, audit: AuditEntry): Promise<void>;
  /**
   * Inserts the record only if no key at all exists, revoked ones included, atomically: of instances
   * starting at once on a fresh database, exactly one inserts. Resolves with whether it did.
   */
  insertFirst(record: ApiKeyRecord, audit: AuditEntry): Promise<boolean>;
  /** Every key, revoked ones included, oldest first. */
  list(): Promise<ApiKeyRecord[]>;
  get(id: string): Promise<ApiKeyRecord | undefined>;
  /**
   * Applies a change to a key that is not revoked, nor, when the change sets its plan or limits, rotated;
   * undefined if no such key has that id. The check and the change are one step.
   */
  update(id: string, change: ApiKeyChange, audit: AuditEntry): Promise<ApiKeyRecord | undefined>;
  /**
   * Inserts `successor` and ends `id` at `expiresAt` (pointing it at the successor), in one transaction,
   * only if `id` is neither revoked, nor rotated, nor expired at `at`; false otherwise. Of rotations of one
   * key at the same time, on any instance, one succeeds.
   */
  rotate(
    id: string,
    successor: ApiKeyRecord,
    expiresAt: string,
    at: string,
    audit: AuditEntry,
  ): Promise<boolean>;
  /** Marks a key revoked; false if no key has that id. Revoking twice keeps the first time. */
  revoke(id: string, at: string, audit: AuditEntry): Promise<boolean>;
  /** Records that the ban of a key's budget was lifted (and forgets its end); false if no key has that id. */
  unban(id: string, at: string, audit: AuditEntry): Promise<boolean>;
  /**
   * Records until when a key's budget is banned, for operators to see. Servers do not read it back: the ban
   * itself lives in the rate-limit store.
   */
  recordBan(budgetId: string, until: string): Promise<void>;
  /** A value that changes whenever a key (or an admin token) is created, changed or revoked, cheap to read. */
  version(): Promise<number>;
}
