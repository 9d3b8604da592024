import type pg from 'pg';
import type { AuditEntry } from '../../audit/index.js';
import type { ApiKeyRepository } from '../../keys/index.js';
import {
  API_KEY_COLUMNS,
  type ApiKeyRow,
  apiKeyChanges,
  apiKeyValues,
  changeable,
  rotatable,
  toApiKeyRecord,
} from '../rows.js';
import { postgresCredentialChanges } from './credentials.js';
import type { Queryable } from './transaction.js';

const VALUES = Array.from({ length: 13 }, (_value, index) => `$${index + 1}`).join(', ');

/**
 * API keys in PostgreSQL. The version row changes with every create, change, revoke and unban, so servers
 * notice a change with one primary-key read instead of rereading every key; every change is appended to the
 * audit record in its transaction.
 */
export function postgresApiKeys(
  pool: pg.Pool,
  audit: { append(db: Queryable, entry: AuditEntry): Promise<void> },
): ApiKeyRepository {
  const { change, revoker } = postgresCredentialChanges(pool, audit);
  const rowCount = async (client: Queryable, sql: string, values: unknown[]) =>
    ((await client.query(sql, values)).rowCount ?? 0) > 0;
  const get = async (db: Queryable, id: string) => {
    const { rows } = await db.query<ApiKeyRow>('SELECT * FROM api_keys WHERE id = $1', [id]);
    return rows[0] === undefined ? undefined : toApiKeyRecord(rows[0]);
  };

  return {
    async insert(record, entry) {
      await change(entry, (client) =>
        rowCount(client, `INSERT INTO api_keys ${API_KEY_COLUMNS} VALUES (${VALUES})`, apiKeyValues(record)),
      );
    },
    insertFirst: (record, entry) =>
      change(entry, async (client) => {
        // Two transactions that both find the table empty would both insert: the lock makes the second wait
        // for the first to commit, and then see its key. It conflicts with itself and with inserts only.
        await client.query('LOCK TABLE api_keys IN SHARE ROW EXCLUSIVE MODE');
        return rowCount(
          client,
          `INSERT INTO api_keys ${API_KEY_COLUMNS} SELECT ${VALUES} WHERE NOT EXISTS (SELECT 1 FROM api_keys)`,
          apiKeyValues(record),
        );
      }),
    async list() {
      const { rows } = await pool.query<ApiKeyRow>('SELECT * FROM api_keys ORDER BY created_at, id');
      return rows.map(toApiKeyRecord);
    },
    get: (id) => get(pool, id),
    async update(id, changes, entry) {
      const set = apiKeyChanges(changes);
      const assignments = set.map(([column], index) => `${column} = $${index + 1}`).join(', ');
      const sql = `UPDATE api_keys SET ${assignments} WHERE id = $${set.length + 1} AND ${changeable(changes)}`;
      const changed = await change(entry, (client) =>
        rowCount(client, sql, [...set.map(([, value]) => value), id]),
      );
      return changed ? get(pool, id) : undefined;
    },
    rotate: (id, successor, expiresAt, at, entry) =>
      change(entry, async (client) => {
        // A rotation that runs at the same moment on another instance holds the row until it commits; this
        // one then reads the row as that one left it, rotated, and changes nothing.
        const ended = await rowCount(
          client,
          `UPDATE api_keys SET expires_at = $1, replaced_by = $2 WHERE id = $3 AND ${rotatable('$4')}`,
          [expiresAt, successor.id, id, at],
        );
        if (!ended) return false;
        await client.query(
          `INSERT INTO api_keys ${API_KEY_COLUMNS} VALUES (${VALUES})`,
          apiKeyValues(successor),
        );
        return true;
      }),
    revoke: revoker('api_keys'),
    unban: (id, at, entry) =>
      change(entry, (client) =>
        // A ban belongs to the budget, which the keys a rotation links share.
        rowCount(
          client,
          `UPDATE api_keys SET unbanned_at = $1, banned_until = NULL
           WHERE budget_id = (SELECT budget_id FROM api_keys WHERE id = $2)`,
          [at, id],
        ),
      ),
    async recordBan(budgetId, until) {
      await pool.query('UPDATE api_keys SET banned_until = $1 WHERE budget_id = $2', [until, budgetId]);
    },
    async version() {
      const { rows } = await pool.query<{ version: number }>(
        'SELECT version FROM api_keys_version WHERE id = 1',
      );
      return (rows[0] as { version: number }).version;
    },
  };
}
