/** The plans of the spec's rate-limit table (section 8). */
export type Plan = 'free' | 'pro' | 'business' | 'enterprise';
export const PLANS: readonly Plan[] = ['free', 'pro', 'business', 'enterprise'];

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
  env: Environment;
  /** The first characters of the key, for people to tell keys apart. */
  prefix: string;
  /** base64url SHA-256 of the key. */
  digest: string;
  createdAt: string;
  revokedAt: string | null;
  /** When `keys unban` last lifted a ban of this key. */
  unbannedAt: string | null;
  /** When the ban the limiter last put on this key ends; null when none was recorded or it was lifted. */
  bannedUntil: string | null;
}

/** Where keys are kept: the storage implements it; nothing here knows which. */
export interface ApiKeyRepository {
  insert(record: ApiKeyRecord): Promise<void>;
  /**
   * Inserts the record only if no key at all exists, revoked ones included, atomically: of instances
   * starting at once on a fresh database, exactly one inserts. Resolves with whether it did.
   */
  insertFirst(record: ApiKeyRecord): Promise<boolean>;
  /** Every key, revoked ones included, oldest first. */
  list(): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked; false if no key has that id. Revoking twice keeps the first time. */
  revoke(id: string, at: string): Promise<boolean>;
  /** Records that a key's ban was lifted (and forgets its end); false if no key has that id. */
  unban(id: string, at: string): Promise<boolean>;
  /**
   * Records until when a key is banned, for operators to see (`keys list`). Servers do not read it back:
   * the ban itself lives in the rate-limit store.
   */
  recordBan(id: string, until: string): Promise<void>;
  /** A value that changes whenever a key is created or revoked, cheap to read. */
  version(): Promise<number>;
}
