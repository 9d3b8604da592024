import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SCHEMA_VERSION } from '../../src/storage/index.js';
import { Sqlite } from '../../src/storage/sqlite/driver.js';
import { MIGRATIONS, migrate } from '../../src/storage/sqlite/migrations.js';
import { schemaDifferences } from '../../src/storage/sqlite/schema-check.js';
import { CRAFTED_SCHEMAS, craftSchema } from '../support/crafted-schemas.js';
import { runCli } from '../support/process.js';
import { tempDir } from '../support/server.js';

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** A file migrated by this release to `version`, in `dir`. */
function made(dir: string, name: string, version = SCHEMA_VERSION): string {
  const file = path.join(dir, name);
  const db = new Sqlite(file);
  try {
    migrate(
      db,
      MIGRATIONS.filter((migration) => migration.version <= version),
    );
  } finally {
    db.close();
  }
  return file;
}

/** The differences of a file from this release's schema at its own version. */
function differencesOf(file: string, version: number): string[] {
  const db = new Sqlite(file, { readonly: true });
  try {
    return schemaDifferences(db, version);
  } finally {
    db.close();
  }
}

/** Runs `sql` on the file. */
function exec(file: string, sql: string): void {
  const db = new Sqlite(file);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

/** The statements that make a schema `SCHEMA_VERSION + 1` that this release serves (oldest release 1.0.0). */
const NEWER = `INSERT INTO schema_migrations (version, name, applied_at, oldest_release)
  VALUES (${SCHEMA_VERSION + 1}, 'a later expansion', '2030-01-01', '1.0.0');`;

describe('a SQLite file’s schema objects against those this release’s migrations make', () => {
  const { dir, remove } = tempDir('petstore-schema-check-');
  after(remove);

  test('a file migrated step by step has, at every version, exactly the objects of a fresh one', () => {
    const file = path.join(dir, 'steps.db');
    const db = new Sqlite(file);
    try {
      for (const migration of MIGRATIONS) {
        migrate(db, [migration]);
        assert.deepEqual(schemaDifferences(db, migration.version), [], `at version ${migration.version}`);
      }
    } finally {
      db.close();
    }
    // An older file is compared with its own version's schema, not the newest.
    const older = made(dir, 'older-8.db', 8);
    assert.deepEqual(differencesOf(older, 8), []);
    assert.ok(
      differencesOf(older, SCHEMA_VERSION).some((difference) => /^no table "domains"$/.test(difference)),
    );
  });

  test('each crafted change is named', () => {
    const good = made(dir, 'good.db');
    for (const [index, craft] of CRAFTED_SCHEMAS.entries()) {
      const differences = differencesOf(craftSchema(good, dir, craft, index), SCHEMA_VERSION);
      assert.equal(differences.length, craft.refusal.length, `${craft.label}: ${differences.join('; ')}`);
      for (const named of craft.refusal) {
        assert.ok(
          differences.some((difference) => named.test(difference)),
          `${craft.label}: ${differences.join('; ')}`,
        );
      }
    }
    // A CHECK taken off a table (rebuilt under its own name) changes its text.
    const loose = made(dir, 'loose.db');
    exec(
      loose,
      `CREATE TABLE t (id TEXT PRIMARY KEY, name TEXT NOT NULL, prefix TEXT NOT NULL, digest TEXT NOT NULL UNIQUE,
         created_at TEXT NOT NULL, revoked_at TEXT, role TEXT NOT NULL DEFAULT 'owner', created_by TEXT) STRICT;
       INSERT INTO t SELECT * FROM admin_tokens; DROP TABLE admin_tokens; ALTER TABLE t RENAME TO admin_tokens;
       CREATE INDEX admin_tokens_by_creator ON admin_tokens (created_by);`,
    );
    assert.deepEqual(differencesOf(loose, SCHEMA_VERSION), [
      'the table "admin_tokens" differs from this release\'s',
    ]);
  });

  test('a newer schema this release serves may add tables, indexes and columns; never a trigger, a view or a virtual table, nor change what this release makes', () => {
    const newer = made(dir, 'newer.db');
    exec(
      newer,
      `${NEWER}
       CREATE TABLE future_notes (id INTEGER PRIMARY KEY, note TEXT NOT NULL UNIQUE) STRICT;
       CREATE INDEX future_notes_by_note ON future_notes (note);
       ALTER TABLE api_keys ADD COLUMN future_flag INTEGER;
       ALTER TABLE api_keys ADD COLUMN future_note TEXT DEFAULT 'x, y';
       ALTER TABLE schema_migrations ADD COLUMN future_column TEXT;
       CREATE INDEX categories_by_name ON categories (name);`,
    );
    assert.deepEqual(differencesOf(newer, SCHEMA_VERSION + 1), []);
    // The same file read as if at this release's version: every addition is extra.
    assert.ok(differencesOf(newer, SCHEMA_VERSION).includes('an extra table "future_notes"'));

    const trapped = path.join(dir, 'newer-trapped.db');
    copyFileSync(newer, trapped);
    exec(
      trapped,
      `CREATE TRIGGER future_keep AFTER UPDATE OF revoked_at ON api_keys
         BEGIN UPDATE api_keys SET revoked_at = NULL WHERE id = NEW.id; END;
       CREATE VIEW future_view AS SELECT id FROM api_keys;
       CREATE VIRTUAL TABLE future_search USING fts5 (text);
       DROP INDEX orders_by_creation;
       DROP TRIGGER audit_events_no_update;`,
    );
    assert.deepEqual(differencesOf(trapped, SCHEMA_VERSION + 1).sort(), [
      'an extra table "future_search"',
      'an extra trigger "future_keep" on api_keys',
      'an extra view "future_view"',
      'no index "orders_by_creation" on orders',
      'no trigger "audit_events_no_update" on audit_events',
    ]);

    // One of our columns changed is not an addition.
    const renamed = made(dir, 'newer-renamed.db');
    exec(renamed, `${NEWER} ALTER TABLE admin_tokens RENAME COLUMN revoked_at TO revoked;`);
    assert.deepEqual(differencesOf(renamed, SCHEMA_VERSION + 1), [
      'the table "admin_tokens" differs from this release\'s',
    ]);
  });

  describe('restore, on files from this release', () => {
    let backup = '';
    before(() => {
      backup = made(dir, 'backup.db');
    });

    /** Asserts a refusal: exit 1, nothing on stdout, one line on stderr matching `message`. */
    const assertRefused = (
      result: { code: number | null; stdout: string; stderr: string },
      message: RegExp,
    ) => {
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stdout, '');
      assert.equal(result.stderr.split('\n').length, 2, `one line: ${result.stderr}`);
      assert.match(result.stderr, message);
    };

    test('an older schema restores (migrate brings it up); a newer one it serves with added tables, columns and indexes restores; with a trigger it is refused', async () => {
      const other = path.join(dir, 'other');
      const otherEnv = {
        DATABASE_URL: `sqlite:${path.join(other, 'petstore.db')}`,
        PETSTORE_DATA_DIR: other,
      };
      const older = made(dir, 'older.db', 8);
      // A directory that does not exist is refused, unless it is the data directory, which is made.
      assertRefused(
        await runCli(['restore', older], {
          ...otherEnv,
          DATABASE_URL: `sqlite:${path.join(dir, 'no', 'x.db')}`,
        }),
        /the directory .*\/no of DATABASE_URL does not exist: check DATABASE_URL, or create the directory first/,
      );
      const restored = await runCli(['restore', older], otherEnv);
      assert.equal(restored.code, 0, restored.stderr);
      assert.match(restored.stdout, /schema version 8\)/);
      const migrated = await runCli(['migrate'], otherEnv);
      const due = Array.from({ length: SCHEMA_VERSION - 8 }, (_, index) => index + 9);
      assert.equal(migrated.stdout, `Applied sqlite migrations ${due.join(', ')}.\n`, migrated.stderr);

      const newer = path.join(dir, 'newer-expanded.db');
      copyFileSync(backup, newer);
      const expanded = new Sqlite(newer);
      expanded.exec(`
        INSERT INTO schema_migrations (version, name, applied_at, oldest_release)
          VALUES (${SCHEMA_VERSION + 1}, 'a later expansion', '2030-01-01', '1.0.0');
        CREATE TABLE future_notes (id INTEGER PRIMARY KEY, note TEXT NOT NULL) STRICT;
        ALTER TABLE api_keys ADD COLUMN future_flag INTEGER;
        CREATE INDEX categories_by_name ON categories (name);`);
      expanded.close();
      const served = await runCli(['restore', newer], otherEnv);
      assert.equal(served.code, 0, served.stderr);
      assert.match(served.stdout, new RegExp(`schema version ${SCHEMA_VERSION + 1}\\)`));

      const before = sha256(path.join(other, 'petstore.db'));
      const trapped = path.join(dir, 'newer-trigger.db');
      copyFileSync(newer, trapped);
      const trap = new Sqlite(trapped);
      trap.exec(`CREATE TRIGGER future_keep AFTER UPDATE OF revoked_at ON api_keys
        BEGIN UPDATE api_keys SET revoked_at = NULL WHERE id = NEW.id; END;
        CREATE VIEW future_view AS SELECT id FROM api_keys;`);
      trap.close();
      const refused = await runCli(['restore', trapped], otherEnv);
      assertRefused(refused, /an extra trigger "future_keep" on api_keys; an extra view "future_view"/);
      assert.equal(sha256(path.join(other, 'petstore.db')), before, 'the database is unchanged');
    });
  });
});
