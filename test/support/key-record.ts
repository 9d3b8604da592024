import { SCOPES } from '../../src/contract/index.js';
import type { ApiKeyRecord } from '../../src/keys/index.js';

/**
 * A key record as storage holds it, for tests that insert or limit one without the key manager: active, on the
 * free plan with every scope, spending a budget of its own; `fields` set the rest.
 */
export function keyRecord(id: string, fields: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id,
    name: id,
    plan: 'free',
    limits: null,
    scopes: SCOPES,
    env: 'production',
    prefix: 'ps_live_abcd',
    digest: `digest-${id}`,
    createdAt: new Date().toISOString(),
    expiresAt: null,
    revokedAt: null,
    replacedBy: null,
    budgetId: id,
    unbannedAt: null,
    bannedUntil: null,
    lastUsedAt: null,
    ...fields,
  };
}
