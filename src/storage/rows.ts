import type { AuditEntry, AuditFilter, AuditRecord } from '../audit/index.js';
import type { Category, Order, OrderStatus, Pet, PetStatus, Scope } from '../contract/index.js';
import type { DomainCheckResult, DomainRecord, DomainState } from '../domains/index.js';
import type { ApiKeyRecord } from '../keys/index.js';
import type { IdempotencyRecord } from './types.js';

/**
 * Rows as both backends store them (same tables, same columns) and the records the rest of the service
 * uses: one mapping each, for SQLite and PostgreSQL alike.
 */

/** A field's name as its column's: `createdAt`, `created_at`. */
type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : S;

/** The row of a record stored as it is: each field in the column of its name in snake case, of its type. */
export type RowOf<T> = { [K in keyof T & string as SnakeCase<K>]: T[K] };

export interface CategoryRow {
  id: number;
  name: string;
  description: string | null;
}

/** A stored category as the API shows it: a missing description is left out, not null. */
export function toCategory(row: CategoryRow): Category {
  return row.description === null
    ? { id: row.id, name: row.name }
    : { id: row.id, name: row.name, description: row.description };
}

export interface PetRow {
  id: number;
  name: string;
  category_id: number;
  status: PetStatus;
}

export function toPet(row: PetRow): Pet {
  return { id: row.id, name: row.name, categoryId: row.category_id, status: row.status };
}

export interface OrderRow {
  id: number;
  pet_id: number;
  quantity: number;
  status: OrderStatus;
  /** SQLite keeps the ISO 8601 text it was given; PostgreSQL a `timestamptz`, read as a Date. */
  created_at: string | Date;
}

export function toOrder(row: OrderRow): Order {
  return {
    id: row.id,
    petId: row.pet_id,
    quantity: row.quantity,
    status: row.status,
    createdAt: typeof row.created_at === 'string' ? row.created_at : row.created_at.toISOString(),
  };
}

export interface ApiKeyRow {
  id: string;
  name: string;
  plan: ApiKeyRecord['plan'];
  per_minute: number | null;
  per_day: number | null;
  env: ApiKeyRecord['env'];
  prefix: string;
  digest: string;
  created_at: string;
  revoked_at: string | null;
  unbanned_at: string | null;
  banned_until: string | null;
  /** Space-separated, in the contract's order. */
  scopes: string;
  expires_at: string | null;
  replaced_by: string | null;
  budget_id: string;
  last_used_at: string | null;
}

export function toApiKeyRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    limits:
      row.per_minute === null || row.per_day === null
        ? null
        : { perMinute: row.per_minute, perDay: row.per_day },
    env: row.env,
    prefix: row.prefix,
    digest: row.digest,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    unbannedAt: row.unbanned_at,
    bannedUntil: row.banned_until,
    scopes: row.scopes.split(' ') as Scope[],
    expiresAt: row.expires_at,
    replacedBy: row.replaced_by,
    budgetId: row.budget_id,
    lastUsedAt: row.last_used_at,
  };
}

/** Moves the version of the credentials (API keys and admin tokens) that every server polls. */
export const BUMP_CREDENTIALS_VERSION = 'UPDATE api_keys_version SET version = version + 1 WHERE id = 1';

/** The columns of a new key's row, in the order both backends' INSERT lists them (API_KEY_COLUMNS). */
export const API_KEY_COLUMNS =
  '(id, name, plan, per_minute, per_day, env, prefix, digest, created_at, revoked_at, scopes, expires_at, budget_id)';

export function apiKeyValues(record: ApiKeyRecord): (string | number | null)[] {
  return [
    record.id,
    record.name,
    record.plan,
    record.limits?.perMinute ?? null,
    record.limits?.perDay ?? null,
    record.env,
    record.prefix,
    record.digest,
    record.createdAt,
    record.revokedAt,
    record.scopes.join(' '),
    record.expiresAt,
    record.budgetId,
  ];
}

/**
 * The condition on a key's row for a rotation at the time bound to `at` (a placeholder): not revoked, not
 * rotated, not expired. Expiries are ISO 8601 UTC times of one length, so text order is time order.
 */
export function rotatable(at: string): string {
  return `revoked_at IS NULL AND replaced_by IS NULL AND (expires_at IS NULL OR expires_at > ${at})`;
}

/**
 * The condition on a key's row for a change: not revoked, nor rotated when the change sets the plan or
 * limits, which the successor of a rotated key holds for the budget the two share.
 */
export function changeable(change: { plan?: string; limits?: unknown }): string {
  return change.plan !== undefined || change.limits !== undefined
    ? 'revoked_at IS NULL AND replaced_by IS NULL'
    : 'revoked_at IS NULL';
}

/**
 * The columns a change of a key sets, and their values; only the fields the change names. Column names
 * come from this fixed table, never from the caller.
 */
export function apiKeyChanges(change: {
  name?: string;
  plan?: string;
  limits?: { perMinute: number; perDay: number } | null;
  scopes?: readonly Scope[];
  expiresAt?: string | null;
}): [column: string, value: string | number | null][] {
  const set: [string, string | number | null][] = [];
  if (change.name !== undefined) set.push(['name', change.name]);
  if (change.plan !== undefined) set.push(['plan', change.plan]);
  if (change.limits !== undefined) {
    set.push(['per_minute', change.limits?.perMinute ?? null], ['per_day', change.limits?.perDay ?? null]);
  }
  if (change.scopes !== undefined) set.push(['scopes', change.scopes.join(' ')]);
  if (change.expiresAt !== undefined) set.push(['expires_at', change.expiresAt]);
  return set;
}

/** An audit filter as the queries of both stores take it: a filter not given is null. */
export interface AuditParameters {
  after: number;
  before: number | null;
  target: string | null;
  actor: string | null;
  actorKind: string | null;
  from: string | null;
  to: string | null;
  limit: number;
}

export function auditParameters(filter: AuditFilter): AuditParameters {
  return {
    after: filter.after,
    before: filter.before ?? null,
    target: filter.target ?? null,
    actor: filter.actor ?? null,
    actorKind: filter.actorKind ?? null,
    from: filter.from ?? null,
    to: filter.to ?? null,
    limit: filter.limit,
  };
}

export interface AuditRow {
  id: number;
  at: string;
  actor: string;
  action: string;
  target: string;
  details: string;
}

export function toAuditRecord(row: AuditRow): AuditRecord {
  return {
    id: row.id,
    at: row.at,
    actor: row.actor,
    action: row.action as AuditRecord['action'],
    target: row.target,
    details: JSON.parse(row.details) as Record<string, unknown>,
  };
}

export interface IdempotencyRow {
  request_digest: string;
  status: number;
  body: string;
}

export function toIdempotencyRecord(row: IdempotencyRow): IdempotencyRecord {
  return { requestDigest: row.request_digest, status: row.status, body: row.body };
}

export interface DomainRow {
  name: string;
  source: string;
  is_primary: number;
  redirect_to: string | null;
  redirect_status: number | null;
  state: string;
  reason: string;
  fix: string | null;
  token: string;
  added_at: string;
  state_since: string;
  checked_at: string | null;
  next_check_at: string;
  last_check: string | null;
  certificate_issuer: string | null;
  certificate_expires_at: string | null;
}

export function toDomainRecord(row: DomainRow): DomainRecord {
  return {
    name: row.name,
    source: row.source as DomainRecord['source'],
    primary: row.is_primary === 1,
    redirectTo: row.redirect_to,
    redirectStatus: row.redirect_status as DomainRecord['redirectStatus'],
    state: row.state as DomainState,
    reason: row.reason,
    fix: row.fix,
    token: row.token,
    addedAt: row.added_at,
    stateSince: row.state_since,
    checkedAt: row.checked_at,
    nextCheckAt: row.next_check_at,
    lastCheck: row.last_check as DomainRecord['lastCheck'],
    certificate:
      row.certificate_issuer === null || row.certificate_expires_at === null
        ? null
        : { issuer: row.certificate_issuer, expiresAt: row.certificate_expires_at },
  };
}

/** The columns a check writes, in the order of `domainCheckValues`. */
export const DOMAIN_CHECK_COLUMNS = [
  'state',
  'reason',
  'fix',
  'state_since',
  'checked_at',
  'next_check_at',
  'last_check',
  'certificate_issuer',
  'certificate_expires_at',
] as const;

export function domainCheckValues(result: DomainCheckResult): (string | null)[] {
  return [
    result.state,
    result.reason,
    result.fix,
    result.stateSince,
    result.checkedAt,
    result.nextCheckAt,
    result.lastCheck,
    result.certificate?.issuer ?? null,
    result.certificate?.expiresAt ?? null,
  ];
}

/** The columns of a new domain: its own, then those a check writes. */
export const DOMAIN_COLUMNS = `(name, source, is_primary, redirect_to, redirect_status, token, added_at, ${DOMAIN_CHECK_COLUMNS.join(', ')})`;

/** A domain's values in the order of `DOMAIN_COLUMNS`. */
export function domainValues(record: DomainRecord): (string | number | null)[] {
  return [
    record.name,
    record.source,
    record.primary ? 1 : 0,
    record.redirectTo,
    record.redirectStatus,
    record.token,
    record.addedAt,
    ...domainCheckValues(record),
  ];
}

/** The audit entry of a primary domain that stops being it, because the config file names another. */
export function primaryMoved(from: string, to: string, at: string): AuditEntry {
  return {
    at,
    actor: 'config',
    action: 'domain.updated',
    target: from,
    details: { primary: false, because: `the config file names ${to} as the primary domain` },
  };
}
