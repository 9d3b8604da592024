import type { ActorKind } from '../contract/index.js';

/** What was done, to a key, an admin token, a custom domain or a webhook endpoint. */
export type AuditAction =
  | 'key.created'
  | 'key.updated'
  | 'key.rotated'
  | 'key.revoked'
  | 'key.unbanned'
  | 'admin_token.created'
  | 'admin_token.revoked'
  | 'session.started'
  | 'session.ended'
  | 'session.refused'
  | 'person.sessions_ended'
  | 'domain.added'
  | 'domain.updated'
  | 'domain.removed'
  | 'domain.reverified'
  | 'domain.state_changed'
  | 'webhook.created'
  | 'webhook.updated'
  | 'webhook.secret_rotated'
  | 'webhook.deleted'
  | 'webhook.disabled'
  | 'access.refused';

/**
 * Who did it: an admin token's id, a person's (`per_…`, signed in with OpenID Connect), an API key's id (a key that rotated or revoked itself), `cli` for the
 * command line on a machine that reaches the database, or the service itself: `config` for the config
 * file's domains, `checker` for the re-checks of domains, `webhooks` for the dispatcher, `oidc` for a sign-in refused.
 */
export type Actor = string;

/** The actor of every change made with the CLI. */
export const CLI_ACTOR: Actor = 'cli';

/**
 * The kind of an actor, from its form alone: ids carry their kind's prefix, and the service's own actors are
 * words. The stores compute the same in SQL (`ACTOR_KIND_SQL`), so that the filter runs in the database.
 */
export function actorKindOf(actor: Actor): ActorKind {
  if (actor.startsWith('adm_')) return 'token';
  if (actor.startsWith('per_')) return 'person';
  if (actor.startsWith('key_')) return 'key';
  return actor === CLI_ACTOR ? 'cli' : 'system';
}

/** `actorKindOf` as an SQL expression of the column `actor`, in the dialect SQLite and PostgreSQL share. */
export const ACTOR_KIND_SQL = `CASE WHEN substr(actor, 1, 4) = 'adm_' THEN 'token'
  WHEN substr(actor, 1, 4) = 'per_' THEN 'person' WHEN substr(actor, 1, 4) = 'key_' THEN 'key' WHEN actor = 'cli' THEN 'cli' ELSE 'system' END`;

/**
 * One change, as it is appended beside the change itself (in the same transaction): who, what, when, to
 * what, and what changed. Never a key, a token, or a digest of either.
 */
export interface AuditEntry {
  at: string;
  actor: Actor;
  action: AuditAction;
  /** The id of the key or the admin token, or the domain's name. */
  target: string;
  details: Readonly<Record<string, unknown>>;
}

/** An entry as stored, with its place in the record. */
export interface AuditRecord extends AuditEntry {
  /** Increasing: entries are listed in the order they were appended. */
  id: number;
}

/** Which entries to list: every filter given must hold. */
export interface AuditFilter {
  /** Only entries after this id (0: from the first). */
  after: number;
  /** Only entries before this id. */
  before?: number;
  target?: string;
  actor?: string;
  actorKind?: ActorKind;
  /** Only entries at or after this time, and before `to` (ISO 8601, as stored). */
  from?: string;
  to?: string;
  /** `asc`: oldest first (the default); `desc`: newest first. */
  order?: 'asc' | 'desc';
  limit: number;
}

/**
 * The record of changes: appended to by the repositories that make the changes, in their transactions, and
 * by `record` for what changes nothing (a refusal).
 */
export interface AuditRepository {
  /** The entries that pass the filter, in its order, at most `limit`. */
  list(filter: AuditFilter): Promise<AuditRecord[]>;
  /** Appends an entry that goes with no change, such as `access.refused`. */
  record(entry: AuditEntry): Promise<void>;
}
