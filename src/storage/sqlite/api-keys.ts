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
import { sqliteCredentialChanges } from './credentials.js';
import type { Database } from './driver.js';
import type { WriteQueue } from './write-queue.js';

const VALUES = `(${Array(13).fill('?').join(', ')})`;

/**
 * API keys in SQLite. The version row changes with every create, change, revoke and unban, so servers
 * notice a change with one primary-key read instead of rereading every key; every change is appended to
 * the audit record in its own write.
 */
export function sqliteApiKeys(
  db: Database,
  writes: WriteQueue,
  audit: { append(entry: AuditEntry): void },
): ApiKeyRepository {
  const insert = db.prepare(`INSERT INTO api_keys ${API_KEY_COLUMNS} VALUES ${VALUES}`);
  const insertFirst = db.prepare(
    `INSERT INTO api_keys ${API_KEY_COLUMNS}
     SELECT ${VALUES.slice(1, -1)} WHERE NOT EXISTS (SELECT 1 FROM api_keys)`,
  );
  const select = db.prepare<[], ApiKeyRow>('SELECT * FROM api_keys ORDER BY created_at, id');
  const byId = db.prepare<[string], ApiKeyRow>('SELECT * FROM api_keys WHERE id = ?');
  const endForRotation = db.prepare<[string, string, string, string]>(
    `UPDATE api_keys SET expires_at = ?, replaced_by = ?
     WHERE id = ? AND ${rotatable('?')}`,
  );
  // A ban belongs to the budget, which the keys a rotation links share.
  const unban = db.prepare<[string, string]>(
    `UPDATE api_keys SET unbanned_at = ?, banned_until = NULL
     WHERE budget_id = (SELECT budget_id FROM api_keys WHERE id = ?)`,
  );
  const recordBan = db.prepare<[string, string]>('UPDATE api_keys SET banned_until = ? WHERE budget_id = ?');
  const version = db.prepare<[], number>('SELECT version FROM api_keys_version WHERE id = 1').pluck();
  const { change, revoker } = sqliteCredentialChanges(db, writes, audit);

  return {
    async insert(record, entry) {
      await change(entry, () => insert.run(...apiKeyValues(record)).changes > 0);
    },
    // The write queue's BEGIN IMMEDIATE holds the write lock, so the check and the insert are one step.
    insertFirst: (record, entry) => change(entry, () => insertFirst.run(...apiKeyValues(record)).changes > 0),
    async list() {
      return select.all().map(toApiKeyRecord);
    },
    async get(id) {
      const row = byId.get(id);
      return row === undefined ? undefined : toApiKeyRecord(row);
    },
    async update(id, changes, entry) {
      const set = apiKeyChanges(changes);
      const statement = db.prepare(
        `UPDATE api_keys SET ${set.map(([column]) => `${column} = ?`).join(', ')} WHERE id = ? AND ${changeable(changes)}`,
      );
      const changed = await change(
        entry,
        () => statement.run(...set.map(([, value]) => value), id).changes > 0,
      );
      if (!changed) return undefined;
      const row = byId.get(id);
      return row === undefined ? undefined : toApiKeyRecord(row);
    },
    rotate: (id, successor, expiresAt, at, entry) =>
      change(entry, () => {
        if (endForRotation.run(expiresAt, successor.id, id, at).changes === 0) return false;
        insert.run(...apiKeyValues(successor));
        return true;
      }),
    revoke: revoker('api_keys'),
    unban: (id, at, entry) => change(entry, () => unban.run(at, id).changes > 0),
    async recordBan(budgetId, until) {
      await writes.run(() => recordBan.run(until, budgetId));
    },
    async version() {
      return version.get() as number;
    },
  };
}
