import { createCredentialReloader, isAdminToken, keyDigest } from '../keys/index.js';
import type { Logger } from '../log/index.js';
import type { AdminTokenRecord, AdminTokenRepository } from './admin-tokens.js';

export interface AdminAuthenticator {
  /** The token's record if it is a valid, unrevoked admin token; in memory, no I/O. */
  authenticate(token: string): AdminTokenRecord | undefined;
  /** The valid, unrevoked token of an id (a session's); in memory, no I/O. */
  byId(id: string): AdminTokenRecord | undefined;
  /**
   * For a well-formed token `authenticate` did not know: rereads the tokens if they changed since (one made a
   * moment ago), within a budget a second; undefined when it is spent. Authenticate again after it.
   */
  recheck(token: string): Promise<void> | undefined;
  /** The same, for the token id of a stored session: its token may be newer than what this instance read. */
  recheckId(id: string): Promise<void> | undefined;
  start(): Promise<void>;
  refresh(): Promise<void>;
  stop(): void;
}

/**
 * Admin tokens held in memory by digest and reread when the credentials' version changes (it moves with
 * every key and token change), as the API keys are: revoked ones are refused within 5 s, new ones at once.
 */
export function createAdminAuthenticator(deps: {
  adminTokens: AdminTokenRepository;
  version: () => Promise<number>;
  logger: Logger;
}): AdminAuthenticator {
  const { adminTokens } = deps;
  let active = new Map<string, AdminTokenRecord>();
  let activeById = new Map<string, AdminTokenRecord>();
  const reloader = createCredentialReloader({
    version: deps.version,
    async reload() {
      const next = new Map<string, AdminTokenRecord>();
      for (const record of await adminTokens.list())
        if (record.revokedAt === null) next.set(record.digest, record);
      active = next;
      activeById = new Map([...next.values()].map((record) => [record.id, record]));
      return true;
    },
    logger: deps.logger,
    what: 'admin tokens',
  });

  return {
    authenticate(token) {
      // Format and checksum first: invented tokens cost no hashing.
      return isAdminToken(token) ? active.get(keyDigest(token)) : undefined;
    },
    byId: (id) => activeById.get(id),
    // Only a token of our format and checksum is worth a look.
    recheck: (token) => (isAdminToken(token) ? reloader.recheck(token) : undefined),
    // Ids and tokens never look alike, so they share the reloader's memory of misses.
    recheckId: (id) => reloader.recheck(`id:${id}`),
    start: reloader.start,
    refresh: reloader.refresh,
    stop: reloader.stop,
  };
}
