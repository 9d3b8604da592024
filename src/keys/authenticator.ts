import { type Logger, warnUnlessOutage } from '../log/index.js';
import { keyDigest, keyEnvironment } from './format.js';
import type { ApiKeyRecord, ApiKeyRepository, Environment } from './record.js';
import { createCredentialReloader } from './reloader.js';

export type Authentication =
  | { ok: true; key: ApiKeyRecord }
  | { ok: false; reason: 'malformed' | 'other_environment' | 'unknown' }
  /** A key of this service, past its expiry (or the end of its rotation's grace period). */
  | { ok: false; reason: 'expired'; key: ApiKeyRecord };

export interface Authenticator {
  /** Looks a presented key up in memory, as of `now`: no I/O on the request path. */
  authenticate(token: string, now: number): Authentication;
  /**
   * For a key `authenticate` found `unknown`: rereads the keys if they changed since (a key made a moment
   * ago on any server), within a budget a second; undefined when it is spent. Authenticate again after it.
   */
  recheck(token: string): Promise<void> | undefined;
  /** Loads the keys, then keeps them current until `stop`. */
  start(): Promise<void>;
  /** Rereads the keys now if they changed, after any reread in progress. */
  refresh(): Promise<void>;
  stop(): void;
}

/** A key that authenticated, kept by the key itself, with its answers made once. */
interface Verified {
  valid: Authentication;
  expired: Authentication;
  /** Epoch ms; Infinity for a key that never expires. */
  expiresAt: number;
}

/**
 * The server's side of API keys: the digests of every key of this environment that is not revoked, held in
 * memory and refreshed when the stored version changes, so a key changed or revoked anywhere takes effect
 * within `refreshMs` plus one read, and a new key at once (`recheck`). Expiry needs no reload: it is checked
 * against the clock.
 */
export function createAuthenticator(deps: {
  apiKeys: ApiKeyRepository;
  env: Environment;
  logger: Logger;
  refreshMs?: number;
  /** Called after each reread of the keys (their stored version moved), for the metrics. */
  onReload?: () => void;
  /** Called when the ban of a key's budget was lifted (`keys unban`, the admin API) since the last refresh. */
  onUnban?: (key: ApiKeyRecord) => Promise<void>;
}): Authenticator {
  const { apiKeys, env, logger } = deps;
  let known = new Map<string, ApiKeyRecord>();
  /**
   * Keys already verified since the last reload, by the key itself: a client sends the same key request after
   * request, and this skips the checksum and the SHA-256. Only keys of this service get in, so its size
   * is bounded by the number of keys, not by what strangers send.
   */
  let verified = new Map<string, Verified>();
  /** The last unban time seen per key id; undefined before the first load. */
  let unbans: Map<string, string | null> | undefined;

  /** Reads every key; false when a ban could not be lifted, so that the next poll reads them again. */
  async function reload(): Promise<boolean> {
    const next = new Map<string, ApiKeyRecord>();
    const nextUnbans = new Map<string, string | null>();
    const lifted = new Map<string, ApiKeyRecord>();
    for (const record of await apiKeys.list()) {
      if (record.revokedAt === null && record.env === env) next.set(record.digest, record);
      nextUnbans.set(record.id, record.unbannedAt);
      if (unbans !== undefined && record.unbannedAt !== null && unbans.get(record.id) !== record.unbannedAt) {
        // Keys that share a budget share its ban: lift it once.
        lifted.set(record.budgetId, record);
      }
    }
    known = next;
    verified = new Map();
    deps.onReload?.();
    let complete = true;
    for (const record of lifted.values()) {
      try {
        await deps.onUnban?.(record);
      } catch (error) {
        // Seen as not yet lifted, and the keys reread at the next poll, so it is tried again; the others go on.
        nextUnbans.set(record.id, unbans?.get(record.id) ?? null);
        complete = false;
        warnUnlessOutage(logger, error, 'could not lift a ban; will try again', { keyId: record.id });
      }
    }
    unbans = nextUnbans;
    return complete;
  }

  const reloader = createCredentialReloader({
    version: () => apiKeys.version(),
    reload,
    logger,
    what: 'API keys',
    ...(deps.refreshMs !== undefined ? { pollMs: deps.refreshMs } : {}),
  });

  return {
    authenticate(token, now) {
      // The same answer objects every time: the hot path allocates nothing for a key it has seen.
      let entry = verified.get(token);
      if (entry === undefined) {
        // Format and checksum first: invented or mistyped keys cost no hashing and no lookup.
        const keyEnv = keyEnvironment(token);
        if (keyEnv === undefined) return { ok: false, reason: 'malformed' };
        if (keyEnv !== env) return { ok: false, reason: 'other_environment' };
        const key = known.get(keyDigest(token));
        if (key === undefined) return { ok: false, reason: 'unknown' };
        entry = {
          valid: { ok: true, key },
          expired: { ok: false, reason: 'expired', key },
          expiresAt: key.expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(key.expiresAt),
        };
        verified.set(token, entry);
      }
      return now < entry.expiresAt ? entry.valid : entry.expired;
    },
    recheck: reloader.recheck,
    start: reloader.start,
    refresh: reloader.refresh,
    stop: reloader.stop,
  };
}
