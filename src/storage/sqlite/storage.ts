import fs from 'node:fs';
import path from 'node:path';
import type { TellingEntry } from '../../webhooks/index.js';
import { checkServable, type SchemaState } from '../schema.js';
import {
  type CreateOperation,
  type CreateResult,
  type Creates,
  type OpenOptions,
  type Storage,
  StorageNotFoundError,
  StorageOpenError,
} from '../types.js';
import { sqliteAdminTokens } from './admin-tokens.js';
import { sqliteApiKeys } from './api-keys.js';
import { sqliteAudit } from './audit.js';
import { sqliteCategories } from './categories.js';
import { sqliteDomains } from './domains.js';
import { type Database, Sqlite } from './driver.js';
import { createPrivateDir, createPrivateFile, isDirectory, isInside, samePlace } from './files.js';
import { sqliteIdempotency } from './idempotency.js';
import { migrate, readSchema } from './migrations.js';
import { sqliteOrders } from './orders.js';
import { sqlitePeople } from './people.js';
import { sqlitePets } from './pets.js';
import { sqliteSessions } from './sessions.js';
import { sqliteUsage } from './usage.js';
import { sqliteWebhooks } from './webhooks.js';
import { WriteQueue } from './write-queue.js';

/** Whether the file holds the Pet Store schema (of any version), rather than nothing or something else. */
function hasSchema(db: Database): boolean {
  const table = db
    .prepare<[], number>("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .pluck()
    .get();
  return table !== undefined;
}

/** Where a SQLite database is opened, and what may be created for it. */
export interface SqliteOpenOptions extends OpenOptions {
  /** The data directory: a missing file is created there (and the directory itself, 0700) without `createDatabase`. */
  dataDir?: string;
}

/**
 * Makes sure a database file exists at `where` before SQLite opens it, or refuses. A server starting on a
 * mistyped path must not make an empty database there, with a new first key (PostgreSQL's rule: a server
 * never creates a database). So a missing file is created only in the data directory, or with
 * `createDatabase` (`petstore migrate`, `petstore copy`'s target); a missing directory is created only when
 * it is the data directory itself. The file is created 0600 here, not by SQLite, whose files take the
 * umask's mode (0644 as a rule); its -wal and -shm then get the same mode.
 */
function ensureFile(where: string, options: SqliteOpenOptions): void {
  if (fs.existsSync(where)) return;
  if (options.mustExist) throw new StorageNotFoundError(where, 'missing');
  const dir = path.dirname(where);
  const dataDir = options.dataDir;
  if (!isDirectory(dir)) {
    if (dataDir === undefined || !samePlace(dir, dataDir)) {
      throw new StorageOpenError(
        `could not open DATABASE_URL sqlite:${where}: the directory ${dir} does not exist: check the path (only the data directory is created), or create the directory first`,
      );
    }
    createPrivateDir(dir);
  }
  if (!options.createDatabase && (dataDir === undefined || !isInside(where, dataDir))) {
    throw new StorageOpenError(
      `could not open DATABASE_URL sqlite:${where}: no database is there, and a server creates a new one only in the data directory${dataDir === undefined ? '' : ` (${path.resolve(dataDir)})`}: check the path, or if it is right, create the database first with 'petstore migrate'`,
    );
  }
  createPrivateFile(where);
}

/**
 * Opens a SQLite file for the service: WAL with `synchronous=FULL`, so that a COMMIT that returned has
 * reached the disk (DESIGN.md section 8). Both settings are read back, and the start fails if the file
 * system or the build refused them. With `mustExist`, a missing file or schema is refused, not created; a
 * missing file is created only as `ensureFile` allows.
 */
export function openSqliteDatabase(
  file: string,
  options: SqliteOpenOptions = {},
): { db: Database; applied: number[]; schema: SchemaState } {
  const where = file === ':memory:' ? file : path.resolve(file);
  if (file !== ':memory:') ensureFile(where, options);
  // The file exists by now: SQLite must never create one itself, with the umask's mode.
  const db = new Sqlite(file, { fileMustExist: file !== ':memory:' });
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
    const applied = options.migrate === false ? [] : migrate(db);
    const schema = readSchema(db);
    checkServable(schema, where);
    return { db, applied, schema };
  } catch (error) {
    db.close();
    throw error;
  }
}

type Inserts = { [O in CreateOperation]: (input: Creates[O]['input']) => CreateResult<O> };

/** The embedded storage: one SQLite file, every write group-committed (write-queue.ts). */
export function createSqliteStorage(options: { file: string } & SqliteOpenOptions): Storage {
  const { db, applied, schema } = openSqliteDatabase(options.file, options);
  const writes = new WriteQueue(db);
  const ping = db.prepare('SELECT 1');
  const categories = sqliteCategories(db);
  const pets = sqlitePets(db);
  const orders = sqliteOrders(db);
  const idempotency = sqliteIdempotency(db, writes);
  const record = sqliteAudit(db, writes);
  const webhooks = sqliteWebhooks(db, writes, record);
  // An audited change that tells of itself keeps its event in the same transaction (the outbox).
  const audit = {
    repository: record.repository,
    append(entry: TellingEntry) {
      record.append(entry);
      const { event } = entry;
      if (event !== undefined) webhooks.enqueue(event.type, () => event);
    },
  };
  const inserts: Inserts = {
    createCategory: categories.insert,
    createPet: pets.insert,
    placeOrder: orders.insert,
  };
  return {
    kind: 'sqlite',
    migrationsApplied: applied,
    schema,
    categories: categories.repository,
    pets: pets.repository,
    orders: orders.repository,
    apiKeys: sqliteApiKeys(db, writes, audit),
    adminTokens: sqliteAdminTokens(db, writes, audit),
    sessions: sqliteSessions(db, writes, audit),
    ...sqlitePeople(db, writes),
    audit: audit.repository,
    usage: sqliteUsage(db, writes),
    idempotency: idempotency.repository,
    domains: sqliteDomains(db, writes, audit),
    webhooks: webhooks.repository,
    create(operation, input, keep, event) {
      const insert = inserts[operation] as (
        input: Creates[typeof operation]['input'],
      ) => CreateResult<typeof operation>;
      // In the next group transaction, in a savepoint of its own: a conflict rolls back this create alone.
      return writes.run(() => {
        const result = insert(input);
        if (result.ok && keep !== undefined) idempotency.keep(keep, result.created);
        if (result.ok && event !== undefined) {
          if (webhooks.enqueue(event.type, () => event.make(result.created)) > 0) event.queued?.();
        }
        return result;
      });
    },
    async watchCategories() {},
    async watchDomains() {},
    async ping() {
      ping.get();
    },
    async close() {
      writes.flush();
      db.close();
    },
  };
}
