import { type Actor, type AuditEntry, actorKindOf, CLI_ACTOR } from '../audit/index.js';
import { type Clock, systemClock } from '../clock/index.js';
import { type AdminTokenView, personName, type Role } from '../contract/index.js';
import { adminTokenPrefix, checkName, generateAdminToken, keyDigest, randomBase62 } from '../keys/index.js';
import type { PersonRecord } from '../people/index.js';

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
  /**
   * Who made it, as the audit names actors: a person (`per_…`, in their console session), a token (`adm_…`,
   * sent or of its console session) or `cli`. Null when it was not recorded: a token an instance of 1.3 made
   * during a rolling upgrade.
   */
  createdBy: Actor | null;
}

/** A live token a person made: in their console session, or with a token they made (`through`), and so on. */
export interface PersonToken {
  personId: string;
  /** The token that made it, itself made by the person or through one of theirs; null when they made it. */
  through: { id: string; name: string } | null;
  token: AdminTokenRecord;
}

/** Where admin tokens are kept: the storage implements it. Every change is audited in its transaction. */
export interface AdminTokenRepository {
  insert(record: AdminTokenRecord, audit: AuditEntry): Promise<void>;
  /** Every token, revoked ones included, oldest first. */
  list(): Promise<AdminTokenRecord[]>;
  /** Marks a token revoked (the first time stands); false if no token has that id. */
  revoke(id: string, at: string, audit: AuditEntry): Promise<boolean>;
  /**
   * The live tokens people made, oldest first: each made by a person, or by a token made by one (however
   * deep), since whoever held a person's token could make one of their own with it and keep it.
   */
  madeByPeople(): Promise<PersonToken[]>;
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
        createdBy: actor,
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

/** Who made a token, as its views say it (the admin API's `createdBy`, `petstore admin-tokens list`). */
export type TokenMaker = AdminTokenView['createdBy'];

/** The names of those who make tokens, by id: every token's (revoked ones too) and every person's. */
export function makerNames(
  tokens: readonly AdminTokenRecord[],
  people: readonly PersonRecord[],
): ReadonlyMap<string, string> {
  return new Map([
    ...tokens.map((token) => [token.id, token.name] as const),
    ...people.map((person) => [person.id, personName(person)] as const),
  ]);
}

/** Who made a token, named; null when it was not recorded. */
export function tokenMaker(createdBy: Actor | null, names: ReadonlyMap<string, string>): TokenMaker {
  if (createdBy === null) return null;
  const kind = actorKindOf(createdBy);
  // Only people, tokens and the command line make tokens: another actor stored there is not a maker.
  if (kind !== 'person' && kind !== 'token' && kind !== 'cli') return null;
  return { kind, id: createdBy, name: names.get(createdBy) ?? null };
}
