import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { COLUMNS, type RequestColumn } from '../../src/request-log/index.js';
import { openRequestLogStore, requestLogFile, Sqlite } from '../../src/storage/index.js';
import { createTestDatabase } from '../support/backends.js';

// Each store writes out its CREATE TABLE, which the compiler cannot hold to the columns: these tests do, so
// that a column added to columns.ts and not to a table (or the other way round) fails here, not in a write.

/** What SQLite declares a column of each kind as. */
const SQLITE_TYPES: Record<RequestColumn['kind'], string> = {
  text: 'TEXT',
  integer: 'INTEGER',
  real: 'REAL',
  boolean: 'INTEGER',
  time: 'INTEGER',
};

/** PostgreSQL's catalog's name of each type a column may have. */
const POSTGRES_TYPES: Record<RequestColumn['pg'], string> = {
  text: 'text',
  smallint: 'smallint',
  integer: 'integer',
  real: 'real',
  boolean: 'boolean',
  timestamptz: 'timestamp with time zone',
};

test("the SQLite store's table has the log's columns, in their order, of their types", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'petstore-columns-'));
  const database = path.join(dir, 'petstore.db');
  try {
    const store = await openRequestLogStore({
      kind: 'sqlite',
      file: database,
      isDefault: false,
      dataDir: dir,
    });
    await store.close();
    const db = new Sqlite(requestLogFile(database), { readonly: true });
    try {
      const table = db.prepare('SELECT name, type, "notnull" FROM pragma_table_info(?)').all('requests');
      assert.deepEqual(
        table,
        COLUMNS.map(({ column, kind, nullable }) => ({
          name: column,
          type: SQLITE_TYPES[kind],
          notnull: nullable ? 0 : 1,
        })),
      );
    } finally {
      db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the PostgreSQL store's table has the log's columns, in their order, of their types", async () => {
  const database = await createTestDatabase();
  const store = await openRequestLogStore({ kind: 'postgres', url: database.url, poolSize: 2 });
  const client = new pg.Client({ connectionString: database.url });
  try {
    await client.connect();
    const { rows } = await client.query(
      `SELECT column_name AS name, data_type AS type, is_nullable = 'YES' AS nullable
         FROM information_schema.columns WHERE table_name = 'request_log' ORDER BY ordinal_position`,
    );
    assert.deepEqual(
      rows,
      COLUMNS.map(({ column, pg: type, nullable }) => ({
        name: column,
        type: POSTGRES_TYPES[type],
        nullable: nullable === true,
      })),
    );
  } finally {
    await client.end();
    await store.close();
    await database.drop();
  }
});
