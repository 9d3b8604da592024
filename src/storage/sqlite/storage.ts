import fs from 'node:fs';
import path from 'node:path';
import { type ApiKeyRow, apiKeyColumns, toApiKeyRecord } from '../api-key-rows.js';
import { type CategoryRow, toCategory } from '../category-rows.js';
import type { ApiKeyRepository, CategoryRepository, Storage } from '../types.js';
import { sqliteDomains } from './domains.js';
import { type Database, Sqlite } from './driver.js';
import { type RecordAnswer, sqliteIdempotency } from './idempotency.js';
import { migrate } from './migrations.js';
import { sqliteOrders, sqlitePets } from './pets-orders.js';
import { WriteQueue } from './write-queue.js';

/**
 * Opens a SQLite file for the service: WAL with `synchronous=FULL`, so that a COMMIT that returned has
 * reached the disk (DESIGN.md section 8). Both settings are read back, and the start fails if the file
 * system or the build refused them.
 */
export function openSqliteDatabase(file: string): { db: Database; applied: number[] } {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Sqlite(file);
  try {
    db.pragma('busy_timeout = 5000');
    const journal = db.pragma('journal_mode = WAL', { simple: true });
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    const synchronous = db.pragma('synchronous', { simple: true });
    if (journal !== 'wal' && file !== ':memory:') {
      throw new Error(`SQLite refused WAL mode for ${file} (journal_mode is ${String(journal)})`);
    }
    if (synchronous !== 2) {
      throw new Error(`SQLite refused synchronous=FULL for ${file} (it is ${String(synchronous)})`);
    }
    const applied = migrate(db);
    return { db, applied };
  } catch (error) {
    db.close();
    throw error;
  }
}

function sqliteCategories(db: Database, writes: WriteQueue, recordAnswer: RecordAnswer): CategoryRepository {
  const select = db.prepare<[], CategoryRow>('SELECT id, name, description FROM categories ORDER BY id');
  const insert = db.prepare<[string, string | null], { id: number }>(
    'INSERT INTO categories (name, description) VALUES (?, ?) RETURNING id',
  );
  return {
    async list() {
      return select.all().map(toCategory);
    },
    create(input, idempotent) {
      return writes.run(() => {
        const { id } = insert.get(input.name, input.description ?? null) as { id: number };
        const category = toCategory({ id, name: input.name, description: input.description ?? null });
        recordAnswer(idempotent, category);
        return category;
      });
    },
  };
}

function sqliteApiKeys(db: Database, writes: WriteQueue): ApiKeyRepository {
  const insert = db.prepare(
    `INSERT INTO api_keys (id, name, plan, per_minute, per_day, env, prefix, digest, created_at, revoked_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const select = db.prepare<[], ApiKeyRow>('SELECT * FROM api_keys ORDER BY created_at, id');
  const revoke = db.prepare<[string, string]>(
    'UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?',
  );
  const unban = db.prepare<[string, string]>('UPDATE api_keys SET unbanned_at = ? WHERE id = ?');
  const bump = db.prepare('UPDATE api_keys_version SET version = version + 1 WHERE id = 1');
  const version = db.prepare<[], number>('SELECT version FROM api_keys_version WHERE id = 1').pluck();

  return {
    insert(record) {
      return writes.run(() => {
        insert.run(...apiKeyColumns(record));
        bump.run();
      });
    },
    async list() {
      return select.all().map(toApiKeyRecord);
    },
    revoke(id, at) {
      return writes.run(() => {
        const changed = revoke.run(at, id).changes > 0;
        if (changed) bump.run();
        return changed;
      });
    },
    unban(id, at) {
      return writes.run(() => {
        const changed = unban.run(at, id).changes > 0;
        if (changed) bump.run();
        return changed;
      });
    },
    async version() {
      return version.get() as number;
    },
  };
}

/** The embedded storage: one SQLite file, writes group-committed. */
export function createSqliteStorage(options: { file: string }): Storage {
  const { db, applied } = openSqliteDatabase(options.file);
  const writes = new WriteQueue(db);
  const ping = db.prepare('SELECT 1');
  const idempotency = sqliteIdempotency(db, writes);
  const { recordAnswer } = idempotency;
  return {
    kind: 'sqlite',
    migrationsApplied: applied,
    async watchCategories() {},
    categories: sqliteCategories(db, writes, recordAnswer),
    pets: sqlitePets(db, writes, recordAnswer),
    orders: sqliteOrders(db, writes, recordAnswer),
    apiKeys: sqliteApiKeys(db, writes),
    idempotency: idempotency.repository,
    domains: sqliteDomains(db, writes),
    async ping() {
      ping.get();
    },
    async close() {
      writes.flush();
      db.close();
    },
  };
}
