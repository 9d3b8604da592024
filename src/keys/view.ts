import type { ApiKey } from '../contract/index.js';
import type { ApiKeyRecord } from './record.js';

/** What a request with the key meets at `now`: revoked before expired before banned. */
export function keyState(record: ApiKeyRecord, now: number): ApiKey['state'] {
  if (record.revokedAt !== null) return 'revoked';
  if (record.expiresAt !== null && Date.parse(record.expiresAt) <= now) return 'expired';
  if (record.bannedUntil !== null && Date.parse(record.bannedUntil) > now) return 'banned';
  return 'active';
}

/**
 * A key as operators see it (the admin API, `keys list --json`): never the key, never its digest.
 * `effectiveLimits` are the limits its requests meet (the rate limiter's `limitsFor`).
 */
export function keyView(
  record: ApiKeyRecord,
  now: number,
  effectiveLimits: ApiKey['effectiveLimits'],
): ApiKey {
  const state = keyState(record, now);
  return {
    id: record.id,
    name: record.name,
    plan: record.plan,
    limits: record.limits,
    effectiveLimits,
    scopes: [...record.scopes],
    prefix: record.prefix,
    env: record.env,
    state,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    revokedAt: record.revokedAt,
    replacedBy: record.replacedBy,
    bannedUntil: state === 'banned' ? record.bannedUntil : null,
    lastUsedAt: record.lastUsedAt,
  };
}
