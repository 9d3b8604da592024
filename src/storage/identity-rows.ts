import type { Role } from '../contract/index.js';
import type { AdminTokenRecord, PersonToken, SessionRecord } from '../identity/index.js';
import type { OidcLogin, PersonRecord } from '../people/index.js';
import type { RowOf } from './rows.js';

/**
 * The rows of who calls the admin API (admin tokens, console sessions, people and their sign-ins under way)
 * as both backends store them, and the records the identity room uses: one mapping each.
 */

export interface AdminTokenRow {
  id: string;
  name: string;
  prefix: string;
  digest: string;
  created_at: string;
  revoked_at: string | null;
  role: string;
  created_by: string | null;
}

export function toAdminTokenRecord(row: AdminTokenRow): AdminTokenRecord {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    digest: row.digest,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    // The column's CHECK keeps it to the roles.
    role: row.role as Role,
    createdBy: row.created_by,
  };
}

/** The columns of a new admin token, in the order both stores' inserts list them. */
export const ADMIN_TOKEN_COLUMNS = 'id, name, prefix, digest, created_at, revoked_at, role, created_by';

export function adminTokenValues(record: AdminTokenRecord) {
  return [
    record.id,
    record.name,
    record.prefix,
    record.digest,
    record.createdAt,
    record.revokedAt,
    record.role,
    record.createdBy,
  ];
}

/**
 * `made`: the tokens `roots` picks, with whoever made them (`person_id`), then every token made by one of
 * them, however deep, with the token that made it (`through`). A token is made after its maker, so the walk
 * ends; UNION would end it anyway.
 */
const madeFrom = (roots: string) => `WITH RECURSIVE made (person_id, id, through) AS (
    SELECT created_by, id, CAST(NULL AS TEXT) FROM admin_tokens WHERE ${roots}
    UNION
    SELECT made.person_id, admin_tokens.id, admin_tokens.created_by
      FROM admin_tokens JOIN made ON admin_tokens.created_by = made.id
  )`;

/** The live tokens people made, directly or through their tokens, oldest first, with the name of `through`. */
export const PEOPLE_TOKENS_SQL = `${madeFrom("substr(created_by, 1, 4) = 'per_'")}
  SELECT made.person_id, made.through, maker.name AS through_name, admin_tokens.*
    FROM made JOIN admin_tokens ON admin_tokens.id = made.id
    LEFT JOIN admin_tokens AS maker ON maker.id = made.through
    WHERE admin_tokens.revoked_at IS NULL
    ORDER BY admin_tokens.created_at, admin_tokens.id`;

/** Revokes every live token a person made, directly or through their tokens. Parameters: the person, time. */
export const REVOKE_MADE_BY_SQL = `${madeFrom('created_by = $1')}
  UPDATE admin_tokens SET revoked_at = $2
    WHERE revoked_at IS NULL AND id IN (SELECT id FROM made)
    RETURNING *`;

export interface PersonTokenRow extends AdminTokenRow {
  person_id: string;
  through: string | null;
  through_name: string | null;
}

export const toPersonToken = (row: PersonTokenRow): PersonToken => ({
  personId: row.person_id,
  through: row.through === null ? null : { id: row.through, name: row.through_name ?? row.through },
  token: toAdminTokenRecord(row),
});

/** Tokens as a change returned them (`RETURNING`, in no order), oldest first as every list is. */
export const oldestFirst = (records: AdminTokenRecord[]): AdminTokenRecord[] =>
  records.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));

export type SessionRow = RowOf<SessionRecord>;

export function toSessionRecord(row: SessionRow): SessionRecord {
  return {
    digest: row.digest,
    tokenId: row.token_id,
    personId: row.person_id,
    role: row.role,
    refreshToken: row.refresh_token,
    checkedAt: row.checked_at,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    expiresAt: row.expires_at,
    endedAt: row.ended_at,
  };
}

/** The columns of a new session, in the order both stores' inserts list them. */
export const SESSION_COLUMNS =
  'digest, token_id, person_id, role, refresh_token, checked_at, created_at, last_seen_at, expires_at, ended_at';

export function sessionValues(record: SessionRecord) {
  return [
    record.digest,
    record.tokenId,
    record.personId,
    record.role,
    record.refreshToken,
    record.checkedAt,
    record.createdAt,
    record.lastSeenAt,
    record.expiresAt,
    record.endedAt,
  ];
}

/**
 * A sign-in: a new person at their first, their claims, role and time brought up to date after. Parameters:
 * id (used only for a new person), issuer, subject, email, name, role, time.
 */
export const PERSON_SIGN_IN_SQL = `INSERT INTO people (id, issuer, subject, email, name, role, first_sign_in_at, last_sign_in_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
  ON CONFLICT (issuer, subject) DO UPDATE SET email = excluded.email, name = excluded.name, role = excluded.role,
    last_sign_in_at = excluded.last_sign_in_at
  RETURNING *`;

/** Everyone, the latest sign-in first, with their live sessions. Parameters: now, and the idle limit's start. */
export const PEOPLE_LIST_SQL = `SELECT people.*, (SELECT count(*) FROM admin_sessions
    WHERE person_id = people.id AND ended_at IS NULL AND expires_at > $1 AND last_seen_at > $2) AS sessions
  FROM people ORDER BY last_sign_in_at DESC, id`;

/** A person's row; `sessions`, their live sessions, where the list counts them (a string from PostgreSQL's count). */
export type PersonRow = RowOf<PersonRecord> & { sessions?: number | string };

export function toPersonRecord(row: PersonRow): PersonRecord {
  return {
    id: row.id,
    issuer: row.issuer,
    subject: row.subject,
    email: row.email,
    name: row.name,
    role: row.role,
    firstSignInAt: row.first_sign_in_at,
    lastSignInAt: row.last_sign_in_at,
  };
}

export type OidcLoginRow = RowOf<OidcLogin>;

export const toOidcLogin = (row: OidcLoginRow): OidcLogin => ({
  state: row.state,
  binding: row.binding,
  verifier: row.verifier,
  nonce: row.nonce,
  createdAt: row.created_at,
});
