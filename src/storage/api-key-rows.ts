import type { ApiKeyRecord } from './types.js';

/** An api_keys row as both SQL backends store it (same columns, same text timestamps). */
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

/** A stored row as the record the rest of the service uses. */
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

/** The columns of a new row, in the order both backends' INSERT lists them. */
export function apiKeyColumns(record: ApiKeyRecord): (string | number | null)[] {
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
