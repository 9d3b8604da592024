import { type Actor, type AuditEntry, CLI_ACTOR } from '../audit/index.js';
import { type Clock, systemClock } from '../clock/index.js';
import type { Role } from '../contract/index.js';
import { adminTokenPrefix, checkName, generateAdminToken, keyDigest, randomBase62 } from '../keys/index.js';

/** An admin token as stored: only the SHA-256 digest of the token is kept. */
export interface AdminTokenRecord {
  /** Public id, such as `adm_3fK9x2LmQ8aZ`: the actor of the changes it makes, in the audit record. */
  id: string;
  name: string;
  /** The first characters of the token, for people to tell tokens apart. */
  prefix: string;
  digest: string;
  createdAt: string;
  revokedAt: string | null;
  /** What it may do (src/contract/roles.ts); tokens made before roles are owners. */
  role: Role;
}

/** Where admin tokens are kept: the storage implements it. Every change is audited in its transaction. */
export interface AdminTokenRepository {
  insert(record: AdminTokenRecord, audit: AuditEntry): Promise<void>;
  /** Every token, revoked ones included, oldest first. */
  list(): Promise<AdminTokenRecord[]>;
  /** Marks a token revoked (the first time stands); false if no token has that id. */
  revoke(id: string, at: string, audit: AuditEntry): Promise<boolean>;
}

/** The operator's side of admin tokens: `petstore admin-tokens`. */
export interface AdminTokenManager {
  /**
   * Makes a token of `role` and returns it with its record; the token is shown once and never stored. The
   * caller checks that `role` is not above its own (the CLI's is the owner's).
   */
  create(
    name: string | undefined,
    role: Role,
    actor?: Actor,
  ): Promise<{ record: AdminTokenRecord; token: string }>;
  list(): Promise<AdminTokenRecord[]>;
  /** Revokes a token; false if no token has that id. */
  revoke(id: string, actor?: Actor): Promise<boolean>;
}

export function createAdminTokenManager(deps: {
  adminTokens: AdminTokenRepository;
  clock?: Clock;
}): AdminTokenManager {
  const { adminTokens } = deps;
  const clock = deps.clock ?? systemClock;
  const now = () => new Date(clock.now()).toISOString();
  return {
    async create(name = 'unnamed', role, actor = CLI_ACTOR) {
      checkName(name);
      const token = generateAdminToken();
      const record: AdminTokenRecord = {
        id: `adm_${randomBase62(12)}`,
        name,
        prefix: adminTokenPrefix(token),
        digest: keyDigest(token),
        createdAt: now(),
        revokedAt: null,
        role,
      };
      await adminTokens.insert(record, {
        at: record.createdAt,
        actor,
        action: 'admin_token.created',
        target: record.id,
        details: { name, role },
      });
      return { record, token };
    },
    list: () => adminTokens.list(),
    revoke: (id, actor = CLI_ACTOR) =>
      adminTokens.revoke(id, now(), {
        at: now(),
        actor,
        action: 'admin_token.revoked',
        target: id,
        details: {},
      }),
  };
}
