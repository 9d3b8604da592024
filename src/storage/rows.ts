import type { Category, Order, OrderStatus, Pet, PetStatus } from '../contract/index.js';
import type { ApiKeyRecord } from '../keys/index.js';
import type { IdempotencyRecord } from './types.js';

/**
 * Rows as both backends store them (same tables, same columns) and the records the rest of the service
 * uses: one mapping each, for SQLite and PostgreSQL alike.
 */

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
  };
}

/** The columns of a new key's row, in the order both backends' INSERT lists them (API_KEY_COLUMNS). */
export const API_KEY_COLUMNS =
  '(id, name, plan, per_minute, per_day, env, prefix, digest, created_at, revoked_at)';

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
  ];
}

export interface IdempotencyRow {
  request_digest: string;
  status: number;
  body: string;
}

export function toIdempotencyRecord(row: IdempotencyRow): IdempotencyRecord {
  return { requestDigest: row.request_digest, status: row.status, body: row.body };
}
