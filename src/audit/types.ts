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
  | 'domain.added'
  | 'domain.updated'
  | 'domain.removed'
  | 'domain.reverified'
  | 'domain.state_changed'
  | 'webhook.created'
  | 'webhook.updated'
  | 'webhook.secret_rotated'
  | 'webhook.deleted'
  | 'webhook.disabled';

/**
 * Who did it: an admin token's id, `cli` for the command line on a machine that reaches the database,
 * `config` for the config file's domains, `checker` for the re-checks of domains.
 */
export type Actor = string;

/** The actor of every change made with the CLI. */
export const CLI_ACTOR: Actor = 'cli';

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
  /** Only entries at or after this time, and before `to` (ISO 8601, as stored). */
  from?: string;
  to?: string;
  /** `asc`: oldest first (the default); `desc`: newest first. */
  order?: 'asc' | 'desc';
  limit: number;
}

/** The record of changes: appended to only, by the repositories that make the changes. */
export interface AuditRepository {
  /** The entries that pass the filter, in its order, at most `limit`. */
  list(filter: AuditFilter): Promise<AuditRecord[]>;
}
