import type { Logger } from '../log/index.js';
import { keyDigest, keyEnvironment } from './format.js';
import type { ApiKeyRecord, ApiKeyRepository, Environment } from './record.js';

/** How often a server checks whether keys were created or revoked (DESIGN.md: effective within 5 s). */
export const KEY_REFRESH_MS = 1_000;

export type Authentication =
  | { ok: true; key: ApiKeyRecord }
  | { ok: false; reason: 'malformed' | 'other_environment' | 'unknown' };

export interface Authenticator {
  /** Looks a presented key up in memory: no I/O on the request path. */
  authenticate(token: string): Authentication;
  /** Loads the keys, then keeps them current until `stop`. */
  start(): Promise<void>;
  /** Rereads the keys now if they changed. */
  refresh(): Promise<void>;
  stop(): void;
}

/**
 * The server's side of API keys: the digests of every active key of this environment, held in memory and
 * refreshed when the stored version changes, so a key created or revoked by the CLI (or another instance)
 * takes effect within `refreshMs` plus one read.
 */
export function createAuthenticator(deps: {
  apiKeys: ApiKeyRepository;
  env: Environment;
  logger: Logger;
  refreshMs?: number;
  /** Called when `keys unban` lifted a key's ban since the last refresh. */
  onUnban?: (keyId: string) => Promise<void>;
}): Authenticator {
  const { apiKeys, env, logger } = deps;
  let active = new Map<string, ApiKeyRecord>();
  /**
   * Keys already verified since the last reload, by the key itself: a client sends the same key request after
   * request, and this skips the checksum and the SHA-256. Only keys that authenticated get in, so its size
   * is bounded by the number of active keys, not by what strangers send.
   */
  let verified = new Map<string, Authentication>();
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
    const lifted: string[] = [];
    for (const record of await apiKeys.list()) {
      if (record.revokedAt === null && record.env === env) next.set(record.digest, record);
      nextUnbans.set(record.id, record.unbannedAt);
      if (unbans !== undefined && record.unbannedAt !== null && unbans.get(record.id) !== record.unbannedAt) {
        lifted.push(record.id);
      }
    }
    active = next;
    verified = new Map();
    loadedVersion = version;
    for (const keyId of lifted) {
      try {
        await deps.onUnban?.(keyId);
      } catch (error) {
        // Seen as not yet lifted, and the keys reread at the next poll, so it is tried again; the others go on.
        nextUnbans.set(keyId, unbans?.get(keyId) ?? null);
        loadedVersion = -1;
        logger.warn({ err: error, keyId }, 'could not lift a ban; will try again');
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
    authenticate(token) {
      // The same answer object every time: the hot path allocates nothing for a key it has seen.
      const known = verified.get(token);
      if (known !== undefined) return known;
      // Format and checksum first: invented or mistyped keys cost no hashing and no lookup.
      const keyEnv = keyEnvironment(token);
      if (keyEnv === undefined) return { ok: false, reason: 'malformed' };
      if (keyEnv !== env) return { ok: false, reason: 'other_environment' };
      const key = active.get(keyDigest(token));
      if (key === undefined) return { ok: false, reason: 'unknown' };
      const authenticated: Authentication = { ok: true, key };
      verified.set(token, authenticated);
      return authenticated;
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
