import type pg from 'pg';
import type { ApiKeyRepository } from '../../keys/index.js';
import { API_KEY_COLUMNS, type ApiKeyRow, apiKeyValues, toApiKeyRecord } from '../rows.js';
import { transaction } from './transaction.js';

const BUMP = 'UPDATE api_keys_version SET version = version + 1 WHERE id = 1';

/**
 * API keys in PostgreSQL. The version row changes with every create, revoke and unban, so servers notice a
 * change with one primary-key read instead of rereading every key.
 */
export function postgresApiKeys(pool: pg.Pool): ApiKeyRepository {
  /** Runs a change and bumps the version if it changed a row, in one transaction; resolves with whether it did. */
  const change = (sql: string, values: unknown[], before?: string) =>
    transaction(pool, async (client) => {
      if (before !== undefined) await client.query(before);
      const changed = ((await client.query(sql, values)).rowCount ?? 0) > 0;
      if (changed) await client.query(BUMP);
      return changed;
    });
  return {
    async insert(record) {
      await change(
        `INSERT INTO api_keys ${API_KEY_COLUMNS} VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        apiKeyValues(record),
      );
    },
    insertFirst: (record) =>
      change(
        `INSERT INTO api_keys ${API_KEY_COLUMNS}
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 WHERE NOT EXISTS (SELECT 1 FROM api_keys)`,
        apiKeyValues(record),
        // Two transactions that both find the table empty would both insert: the lock makes the second wait
        // for the first to commit, and then see its key. It conflicts with itself and with inserts only.
        'LOCK TABLE api_keys IN SHARE ROW EXCLUSIVE MODE',
      ),
    async list() {
      const { rows } = await pool.query<ApiKeyRow>('SELECT * FROM api_keys ORDER BY created_at, id');
      return rows.map(toApiKeyRecord);
    },
    revoke: (id, at) =>
      change('UPDATE api_keys SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2', [at, id]),
    unban: (id, at) =>
      change('UPDATE api_keys SET unbanned_at = $1, banned_until = NULL WHERE id = $2', [at, id]),
    async recordBan(id, until) {
      await pool.query('UPDATE api_keys SET banned_until = $1 WHERE id = $2', [until, id]);
    },
    async version() {
      const { rows } = await pool.query<{ version: number }>(
        'SELECT version FROM api_keys_version WHERE id = 1',
      );
      return (rows[0] as { version: number }).version;
    },
  };
}
