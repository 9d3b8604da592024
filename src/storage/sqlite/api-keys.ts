import type { ApiKeyRepository } from '../../keys/index.js';
import { API_KEY_COLUMNS, type ApiKeyRow, apiKeyValues, toApiKeyRecord } from '../rows.js';
import type { Database } from './driver.js';
import type { WriteQueue } from './write-queue.js';

/**
 * API keys in SQLite. The version row changes with every create, revoke and unban, so servers notice a
 * change with one primary-key read instead of rereading every key.
 */
export function sqliteApiKeys(db: Database, writes: WriteQueue): ApiKeyRepository {
  const insert = db.prepare(`INSERT INTO api_keys ${API_KEY_COLUMNS} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insertFirst = db.prepare(
    `INSERT INTO api_keys ${API_KEY_COLUMNS}
     SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM api_keys)`,
  );
  const select = db.prepare<[], ApiKeyRow>('SELECT * FROM api_keys ORDER BY created_at, id');
  const revoke = db.prepare<[string, string]>(
    'UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?',
  );
  const unban = db.prepare<[string, string]>(
    'UPDATE api_keys SET unbanned_at = ?, banned_until = NULL WHERE id = ?',
  );
  const recordBan = db.prepare<[string, string]>('UPDATE api_keys SET banned_until = ? WHERE id = ?');
  const bump = db.prepare('UPDATE api_keys_version SET version = version + 1 WHERE id = 1');
  const version = db.prepare<[], number>('SELECT version FROM api_keys_version WHERE id = 1').pluck();

  /** Runs a change and bumps the version if it changed a row; resolves with whether it did. */
  const change = (run: () => { changes: number }) =>
    writes.run(() => {
      const changed = run().changes > 0;
      if (changed) bump.run();
      return changed;
    });

  return {
    async insert(record) {
      await change(() => insert.run(...apiKeyValues(record)));
    },
    // The write queue's BEGIN IMMEDIATE holds the write lock, so the check and the insert are one step.
    insertFirst: (record) => change(() => insertFirst.run(...apiKeyValues(record))),
    async list() {
      return select.all().map(toApiKeyRecord);
    },
    revoke: (id, at) => change(() => revoke.run(at, id)),
    unban: (id, at) => change(() => unban.run(at, id)),
    async recordBan(id, until) {
      await writes.run(() => recordBan.run(until, id));
    },
    async version() {
      return version.get() as number;
    },
  };
}
