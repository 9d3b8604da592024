import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import type { Category, NewCategory } from '../../contract/index.js';
import type { Storage } from '../types.js';
import { migrate } from './migrations.js';
import { WriteQueue } from './write-queue.js';

interface CategoryRow {
  id: number;
  name: string;
  description: string | null;
}

/**
 * Opens a SQLite file for the service: WAL with `synchronous=FULL`, so that a COMMIT that returned has
 * reached the disk (DESIGN.md section 8). Both settings are read back, and the start fails if the file
 * system or the build refused them.
 */
export function openSqliteDatabase(file: string): Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new BetterSqlite3(file);
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
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function toCategory(row: CategoryRow): Category {
  return row.description === null
    ? { id: row.id, name: row.name }
    : { id: row.id, name: row.name, description: row.description };
}

/** The embedded storage: one SQLite file, writes group-committed. */
export function createSqliteStorage(options: { file: string }): Storage {
  const db = openSqliteDatabase(options.file);
  const writes = new WriteQueue(db);
  const selectCategories = db.prepare<[], CategoryRow>(
    'SELECT id, name, description FROM categories ORDER BY id',
  );
  const insertCategory = db.prepare<[string, string | null], { id: number }>(
    'INSERT INTO categories (name, description) VALUES (?, ?) RETURNING id',
  );
  const ping = db.prepare('SELECT 1');

  return {
    kind: 'sqlite',
    async listCategories() {
      return selectCategories.all().map(toCategory);
    },
    createCategory(input: NewCategory) {
      return writes.run(() => {
        const { id } = insertCategory.get(input.name, input.description ?? null) as { id: number };
        return input.description === undefined
          ? { id, name: input.name }
          : { id, name: input.name, description: input.description };
      });
    },
    async ping() {
      ping.get();
    },
    async close() {
      writes.flush();
      db.close();
    },
  };
}
