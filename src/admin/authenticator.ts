import { isAdminToken, keyDigest } from '../keys/index.js';
import type { Logger } from '../log/index.js';
import type { AdminTokenRecord, AdminTokenRepository } from './tokens.js';

/** How often a server checks whether admin tokens changed: revoked ones are refused within 5 s. */
const REFRESH_MS = 1_000;

export interface AdminAuthenticator {
  /** The token's record if it is a valid, unrevoked admin token; in memory, no I/O. */
  authenticate(token: string): AdminTokenRecord | undefined;
  start(): Promise<void>;
  refresh(): Promise<void>;
  stop(): void;
}

/**
 * Admin tokens held in memory by digest and reread when the credentials' version changes (it moves with
 * every key and token change), as the API keys are.
 */
export function createAdminAuthenticator(deps: {
  adminTokens: AdminTokenRepository;
  version: () => Promise<number>;
  logger: Logger;
}): AdminAuthenticator {
  const { adminTokens, version, logger } = deps;
  let active = new Map<string, AdminTokenRecord>();
  let loadedVersion = -1;
  let timer: NodeJS.Timeout | undefined;
  let refreshing: Promise<void> | undefined;

  async function reload(): Promise<void> {
    const current = await version();
    if (current === loadedVersion) return;
    const next = new Map<string, AdminTokenRecord>();
    for (const record of await adminTokens.list())
      if (record.revokedAt === null) next.set(record.digest, record);
    active = next;
    loadedVersion = current;
  }
  const refresh = (): Promise<void> => {
    refreshing ??= reload().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  };

  return {
    authenticate(token) {
      // Format and checksum first: invented tokens cost no hashing.
      return isAdminToken(token) ? active.get(keyDigest(token)) : undefined;
    },
    async start() {
      await refresh();
      timer = setInterval(() => {
        refresh().catch((error: unknown) => logger.warn({ err: error }, 'could not refresh admin tokens'));
      }, REFRESH_MS);
      timer.unref();
    },
    refresh,
    stop() {
      clearInterval(timer);
    },
  };
}
