import fs from 'node:fs';
import path from 'node:path';
import { type ApiKeyRow, apiKeyColumns, toApiKeyRecord } from '../api-key-rows.js';
import { type CategoryRow, toCategory } from '../category-rows.js';
import {
  type ApiKeyRepository,
  type CategoryRepository,
  type OpenOptions,
  type Storage,
  StorageNotFoundError,
} from '../types.js';
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
export function openSqliteDatabase(
  file: string,
  options: OpenOptions = {},
): { db: Database; applied: number[] } {
  const where = file === ':memory:' ? file : path.resolve(file);
  if (options.mustExist && file !== ':memory:' && !fs.existsSync(file)) {
    throw new StorageNotFoundError(where, 'missing');
  }
  if (file !== ':memory:') fs.mkdirSync(path.dirname(where), { recursive: true });
  const db = new Sqlite(file, { fileMustExist: options.mustExist === true });
  try {
    if (options.mustExist && !hasSchema(db)) throw new StorageNotFoundError(where, 'no_schema');
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

/** Whether the file holds the Pet Store schema (of any version), rather than nothing or something else. */
function hasSchema(db: Database): boolean {
  const table = db
    .prepare<[], number>("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .pluck()
    .get();
  return table !== undefined;
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
  const insertFirst = db.prepare(
    `INSERT INTO api_keys (id, name, plan, per_minute, per_day, env, prefix, digest, created_at, revoked_at)
     SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM api_keys)`,
  );
  const unban = db.prepare<[string, string]>(
    'UPDATE api_keys SET unbanned_at = ?, banned_until = NULL WHERE id = ?',
  );
  const recordBan = db.prepare<[string, string]>('UPDATE api_keys SET banned_until = ? WHERE id = ?');
  const bump = db.prepare('UPDATE api_keys_version SET version = version + 1 WHERE id = 1');
  const version = db.prepare<[], number>('SELECT version FROM api_keys_version WHERE id = 1').pluck();

  return {
    insert(record) {
      return writes.run(() => {
        insert.run(...apiKeyColumns(record));
        bump.run();
      });
    },
    insertFirst(record) {
      // The write queue's BEGIN IMMEDIATE holds the write lock, so the check and the insert are one step.
      return writes.run(() => {
        const inserted = insertFirst.run(...apiKeyColumns(record)).changes > 0;
        if (inserted) bump.run();
        return inserted;
      });
    },
    async list() {
      return select.all().map(toApiKeyRecord);
    },
    async recordBan(id, until) {
      await writes.run(() => recordBan.run(until, id));
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
export function createSqliteStorage(options: { file: string } & OpenOptions): Storage {
  const { db, applied } = openSqliteDatabase(options.file, options);
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
