import type { Logger } from '../log/index.js';
import { keyDigest, keyEnvironment } from './format.js';
import type { ApiKeyRecord, ApiKeyRepository, Environment } from './record.js';

/** How often a server checks whether keys changed (DESIGN.md: effective within 5 s). */
export const KEY_REFRESH_MS = 1_000;

export type Authentication =
  | { ok: true; key: ApiKeyRecord }
  | { ok: false; reason: 'malformed' | 'other_environment' | 'unknown' }
  /** A key of this service, past its expiry (or the end of its rotation's grace period). */
  | { ok: false; reason: 'expired'; key: ApiKeyRecord };

export interface Authenticator {
  /** Looks a presented key up in memory, as of `now`: no I/O on the request path. */
  authenticate(token: string, now: number): Authentication;
  /** Loads the keys, then keeps them current until `stop`. */
  start(): Promise<void>;
  /** Rereads the keys now if they changed. */
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
 * memory and refreshed when the stored version changes, so a key created, changed or revoked anywhere takes
 * effect within `refreshMs` plus one read. Expiry needs no reload: it is checked against the clock.
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
  let loadedVersion = -1;
  let timer: NodeJS.Timeout | undefined;
  let refreshing: Promise<void> | undefined;

  async function reload(): Promise<void> {
    const version = await apiKeys.version();
    if (version === loadedVersion) return;
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
    loadedVersion = version;
    deps.onReload?.();
    for (const record of lifted.values()) {
      try {
        await deps.onUnban?.(record);
      } catch (error) {
        // Seen as not yet lifted, and the keys reread at the next poll, so it is tried again; the others go on.
        nextUnbans.set(record.id, unbans?.get(record.id) ?? null);
        loadedVersion = -1;
        logger.warn({ err: error, keyId: record.id }, 'could not lift a ban; will try again');
      }
    }
    unbans = nextUnbans;
  }

  const refresh = (): Promise<void> => {
    refreshing ??= reload().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  };

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
    async start() {
      await refresh();
      timer = setInterval(() => {
        refresh().catch((error: unknown) => logger.warn({ err: error }, 'could not refresh API keys'));
      }, deps.refreshMs ?? KEY_REFRESH_MS);
      timer.unref();
    },
    refresh,
    stop() {
      clearInterval(timer);
    },
  };
}
