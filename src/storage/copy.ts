import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { printableUrl } from '../log/index.js';
import { createPostgresStorage } from './postgres/storage.js';
import { SCHEMA_VERSION } from './schema.js';
import { type Database, Sqlite, type Statement } from './sqlite/driver.js';
import { describeDifferences, schemaDifferences } from './sqlite/schema-check.js';
import { createSqliteStorage } from './sqlite/storage.js';
import type { StorageConfig } from './types.js';

/**
 * `petstore copy`: every table of one Pet Store database into another, empty one, SQLite or PostgreSQL on
 * either side. The whole copy is one transaction on the target, committed only after every table's count and
 * checksum match the source's: a failure anywhere (the target cut off, a constraint, a mismatch) leaves the
 * target as empty as it was. Committing each batch instead would leave half a copy behind, and it could not
 * even be cleaned up, since the audit log refuses DELETE and TRUNCATE on PostgreSQL.
 */

/** A table the copy knows: its primary key, for order and paging; `sequence`, its generated id. */
interface TableSpec {
  name: string;
  key: readonly string[];
  sequence?: 'id';
  /** One row the migrations insert themselves (a version counter): replaced, not refused. */
  singleton?: true;
}

/** Every table of the schema, parents before children. A table missing here stops the copy (checkTables). */
const TABLES: readonly TableSpec[] = [
  { name: 'api_keys', key: ['id'] },
  { name: 'api_keys_version', key: ['id'], singleton: true },
  { name: 'admin_tokens', key: ['id'] },
  { name: 'people', key: ['id'] },
  { name: 'admin_sessions', key: ['digest'] },
  { name: 'oidc_logins', key: ['state'] },
  { name: 'categories', key: ['id'], sequence: 'id' },
  { name: 'pets', key: ['id'], sequence: 'id' },
  { name: 'orders', key: ['id'], sequence: 'id' },
  { name: 'idempotency_records', key: ['api_key_id', 'idempotency_key'] },
  { name: 'domains', key: ['name'] },
  { name: 'domains_version', key: ['id'], singleton: true },
  { name: 'key_usage', key: ['key_id', 'day'] },
  { name: 'key_usage_hourly', key: ['key_id', 'hour'] },
  { name: 'key_deprecated_calls', key: ['key_id', 'operation_id'] },
  { name: 'audit_events', key: ['id'], sequence: 'id' },
  { name: 'webhook_endpoints', key: ['id'] },
  { name: 'webhook_subscriptions', key: ['event_type', 'endpoint_id'] },
  { name: 'webhook_events', key: ['id'] },
  { name: 'webhook_deliveries', key: ['id'], sequence: 'id' },
  { name: 'webhook_attempts', key: ['delivery_id', 'attempt'] },
];

/** Tables that belong to the engine or to the migrations, never copied. */
const NOT_DATA = new Set(['schema_migrations', 'sqlite_sequence', 'sqlite_stat1', 'sqlite_stat4']);

/** The request log's table and its daily partitions (PostgreSQL): a log, not data; never copied. */
const REQUEST_LOG = /^request_log(_\d{8})?$/;

/**
 * A value as both backends give it to the copy: integers as decimal text, text as it is, NULL as null. The
 * checksum hashes these, so the same row reads the same from either side.
 */
type Value = string | null;

interface Column {
  name: string;
  /** What the backend stores, as far as the copy cares. */
  type: 'integer' | 'text' | 'timestamp';
}

/** One end of a copy, on either backend. */
interface End {
  readonly where: string;
  schemaVersion(): Promise<number | null>;
  /**
   * How the schema's objects differ from those this release's migrations make at `version` (SQLite: a file
   * may come from anywhere, schema-check.ts). PostgreSQL's catalogs are not compared: empty.
   */
  schemaDifferences(version: number): Promise<string[]>;
  tables(): Promise<string[]>;
  columns(table: string): Promise<Column[]>;
  begin(mode: 'read' | 'write'): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  count(table: string): Promise<number>;
  /**
   * Rows after `after` (a key, or undefined for the first), ordered by primary key, their values in the order
   * of `names`. Each end reads and writes by its own column types.
   */
  page(table: TableSpec, names: string[], after: Value[] | undefined, limit: number): Promise<Value[][]>;
  insert(table: TableSpec, names: string[], rows: Value[][]): Promise<void>;
  /** Removes the row the migrations put in a singleton table, for the source's to replace it. */
  clear(table: string): Promise<void>;
  /** The last id the table's sequence handed out (never reused), or 0. */
  sequence(table: string): Promise<number>;
  /** Moves the table's sequence so that the next id is above `last`. */
  advance(table: string, last: number): Promise<void>;
  close(): Promise<void>;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

function sqliteEnd(file: string): End {
  const db: Database = new Sqlite(file, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  // Integers come back exact, past 2^53 too.
  db.defaultSafeIntegers(true);
  const toValue = (value: unknown): Value => {
    if (value === null || typeof value === 'string') return value;
    if (typeof value === 'bigint' || typeof value === 'number') return String(value);
    throw new Error(`${file} holds a value of an unexpected type (${typeof value})`);
  };
  const bind = (column: Column | undefined, value: Value) =>
    value === null ? null : column?.type === 'integer' ? BigInt(value) : value;
  const columnsOf = new Map<string, Column[]>();
  const columns = (table: string): Column[] => {
    let known = columnsOf.get(table);
    if (known === undefined) {
      const rows = db.prepare('SELECT name, type FROM pragma_table_info(?)').all(table) as {
        name: string;
        type: string;
      }[];
      known = rows.map((row) => ({ name: row.name, type: row.type === 'INTEGER' ? 'integer' : 'text' }));
      columnsOf.set(table, known);
    }
    return known;
  };
  const typed = (table: string, names: string[]) =>
    names.map((name) => columns(table).find((column) => column.name === name));
  const statements = new Map<string, Statement<unknown[]>>();
  const prepared = (sql: string) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  return {
    where: path.resolve(file),
    async schemaVersion() {
      const exists = db
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
        .get();
      if (exists === undefined) return null;
      const version = db.prepare('SELECT max(version) FROM schema_migrations').pluck().get();
      return version === null || version === undefined ? 0 : Number(version);
    },
    async schemaDifferences(version) {
      return schemaDifferences(db, version);
    },
    async tables() {
      return db
        .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .pluck()
        .all()
        .map(String);
    },
    async columns(table) {
      return columns(table);
    },
    async begin(mode) {
      // IMMEDIATE: the write lock from the start, so no server writes into the target meanwhile. A read
      // transaction is one snapshot of the source, however long the copy takes (WAL).
      db.exec(mode === 'write' ? 'BEGIN IMMEDIATE' : 'BEGIN');
      if (mode === 'read') db.prepare('SELECT count(*) FROM sqlite_master').get();
    },
    async commit() {
      db.exec('COMMIT');
    },
    async rollback() {
      if (db.inTransaction) db.exec('ROLLBACK');
    },
    async count(table) {
      return Number(
        prepared(`SELECT count(*) FROM ${quote(table)}`)
          .pluck()
          .get(),
      );
    },
    async page(table, names, after, limit) {
      const keyColumns = table.key.map(quote).join(', ');
      const keyTypes = typed(table.name, [...table.key]);
      const sql =
        `SELECT ${names.map(quote).join(', ')} FROM ${quote(table.name)}` +
        (after === undefined ? '' : ` WHERE (${keyColumns}) > (${table.key.map(() => '?').join(', ')})`) +
        ` ORDER BY ${keyColumns} LIMIT ${limit}`;
      const parameters = after?.map((value, i) => bind(keyTypes[i], value)) ?? [];
      const rows = prepared(sql)
        .raw(true)
        .all(...parameters) as unknown[][];
      return rows.map((row) => row.map(toValue));
    },
    async insert(table, names, rows) {
      const statement = prepared(
        `INSERT INTO ${quote(table.name)} (${names.map(quote).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
      );
      const types = typed(table.name, names);
      for (const row of rows) statement.run(...row.map((value, i) => bind(types[i], value)));
    },
    async clear(table) {
      db.prepare(`DELETE FROM ${quote(table)}`).run();
    },
    async sequence(table) {
      const seq = db.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').pluck().get(table);
      return seq === undefined || seq === null ? 0 : Number(seq);
    },
    async advance(table, last) {
      // AUTOINCREMENT keeps the highest id ever handed out here; the inserts above moved it to the highest
      // copied id, and the source may have handed out higher ones (rows since removed): never reuse those.
      const changed = db
        .prepare('UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?')
        .run(last, table).changes;
      if (changed === 0 && last > 0) {
        db.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)').run(table, last);
      }
    },
    async close() {
      db.close();
    },
  };
}

async function postgresEnd(url: string): Promise<End> {
  // No query timeout: a batch of the copy may wait for locks, and the whole copy is one transaction. int8
  // stays text (pg's default), so ids and counters come across exact.
  const client = new pg.Client({ connectionString: url, keepAlive: true });
  client.on('error', () => {});
  await client.connect();
  const columnsOf = new Map<string, Column[]>();
  const columns = async (table: string): Promise<Column[]> => {
    const known = columnsOf.get(table);
    if (known !== undefined) return known;
    const { rows } = await client.query<{ name: string; type: string }>(
      `SELECT column_name AS name, data_type AS type FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
      [table],
    );
    const found: Column[] = rows.map((row) => ({
      name: row.name,
      type:
        row.type === 'bigint' || row.type === 'integer' || row.type === 'smallint'
          ? 'integer'
          : row.type.startsWith('timestamp')
            ? 'timestamp'
            : 'text',
    }));
    columnsOf.set(table, found);
    return found;
  };
  const typed = async (table: string, name: string): Promise<Column> =>
    (await columns(table)).find((column) => column.name === name) ?? { name, type: 'text' };
  /** The last id a table's identity handed out, or 0. */
  const sequence = async (table: string): Promise<number> => {
    const { rows } = await client.query<{ name: string | null }>(
      "SELECT pg_get_serial_sequence($1, 'id') AS name",
      [table],
    );
    const name = rows[0]?.name;
    if (name == null) return 0;
    const last = await client.query<{ last: string }>(
      `SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END AS last FROM ${name}`,
    );
    return Number(last.rows[0]?.last ?? 0);
  };
  const select = (column: Column) =>
    column.type === 'timestamp'
      ? // The service writes ISO 8601 UTC with milliseconds; SQLite keeps that text, so it is read back so.
        `to_char(${quote(column.name)} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
      : `${quote(column.name)}::text`;
  // Byte order, as SQLite compares text: the database's collation could order keys otherwise.
  // Qualified with the table: a bare name in ORDER BY would name the output column, which is the value cast
  // to text, and order ids as text (10 before 9).
  const key = (table: string, column: string, type: Column['type']) =>
    `${quote(table)}.${quote(column)}${type === 'text' ? ' COLLATE "C"' : ''}`;
  return {
    where: printableUrl(url),
    async schemaVersion() {
      const { rows } = await client.query<{ table: string | null }>(
        "SELECT to_regclass('schema_migrations')::text AS table",
      );
      if (rows[0]?.table == null) return null;
      const version = await client.query<{ version: number | null }>(
        'SELECT max(version) AS version FROM schema_migrations',
      );
      return version.rows[0]?.version ?? 0;
    },
    async schemaDifferences() {
      return [];
    },
    async tables() {
      const { rows } = await client.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
      );
      return rows.map((row) => row.name);
    },
    columns,
    async begin(mode) {
      await client.query(
        mode === 'read'
          ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'
          : 'BEGIN ISOLATION LEVEL READ COMMITTED',
      );
      if (mode === 'write') {
        // Nobody else writes the tables while they are filled: a server started too early waits, then
        // finds the copy whole.
        await client.query(
          `LOCK TABLE ${TABLES.map((table) => quote(table.name)).join(', ')} IN EXCLUSIVE MODE`,
        );
      }
    },
    async commit() {
      await client.query('COMMIT');
    },
    async rollback() {
      await client.query('ROLLBACK').catch(() => {});
    },
    async count(table) {
      const { rows } = await client.query<{ count: string }>(`SELECT count(*) AS count FROM ${quote(table)}`);
      return Number(rows[0]?.count ?? 0);
    },
    async page(table, names, after, limit) {
      const keyColumns = await Promise.all(
        table.key.map(async (name) => key(table.name, name, (await typed(table.name, name)).type)),
      );
      const selected = await Promise.all(names.map(async (name) => select(await typed(table.name, name))));
      const sql =
        `SELECT ${selected.join(', ')} FROM ${quote(table.name)}` +
        (after === undefined
          ? ''
          : ` WHERE (${keyColumns.join(', ')}) > (${table.key.map((_, i) => `$${i + 1}`).join(', ')})`) +
        ` ORDER BY ${keyColumns.join(', ')} LIMIT ${limit}`;
      const { rows } = await client.query<Value[]>({ text: sql, values: after ?? [], rowMode: 'array' });
      return rows;
    },
    async insert(table, names, rows) {
      if (rows.length === 0) return;
      const width = names.length;
      const values = rows.map((_, r) => `(${names.map((_, c) => `$${r * width + c + 1}`).join(', ')})`);
      // The copied ids are kept: GENERATED ALWAYS refuses them without OVERRIDING SYSTEM VALUE. The audit
      // log's triggers refuse UPDATE and DELETE only, so the insert passes them.
      await client.query(
        `INSERT INTO ${quote(table.name)} (${names.map(quote).join(', ')})` +
          `${table.sequence === undefined ? '' : ' OVERRIDING SYSTEM VALUE'} VALUES ${values.join(', ')}`,
        rows.flat(),
      );
    },
    async clear(table) {
      await client.query(`DELETE FROM ${quote(table)}`);
    },
    sequence,
    async advance(table, last) {
      // The identity hands out last + 1 next; never less than what the target handed out itself.
      const highest = Math.max(last, await sequence(table));
      if (highest < 1) return;
      await client.query("SELECT setval(pg_get_serial_sequence($1, 'id'), $2)", [table, highest]);
    },
    async close() {
      await client.end().catch(() => {});
    },
  };
}

/** How far a copy is: `table` has `copied` of its `total` rows in the target (not yet committed). */
export interface CopyProgress {
  table: string;
  copied: number;
  total: number;
}

export interface CopyOptions {
  from: StorageConfig;
  to: StorageConfig;
  /** Rows per INSERT (PostgreSQL) or per step between progress reports. */
  batchSize?: number;
  /** Told after every batch; whatever it throws aborts the copy, which then leaves the target empty. */
  onProgress?: (progress: CopyProgress) => void;
}

export interface CopiedTable {
  table: string;
  rows: number;
  /** SHA-256, hex, over the rows in primary-key order, each as the JSON array of its values as text. */
  checksum: string;
}

export interface CopyReport {
  from: string;
  to: string;
  tables: CopiedTable[];
  /** For each table with a generated id: the highest id the target will never hand out again. */
  sequences: { table: string; last: number }[];
  rows: number;
  ms: number;
}

/** A copy refused or failed; its message is one line naming what to fix. */
export class CopyError extends Error {
  override name = 'CopyError';
}

function describe(config: StorageConfig): string {
  return config.kind === 'sqlite' ? path.resolve(config.file) : printableUrl(config.url);
}

/** Opens the source without changing it: it must exist and hold the current schema, and nothing else. */
async function openSource(config: StorageConfig): Promise<End> {
  if (config.kind === 'sqlite' && !fs.existsSync(config.file)) {
    throw new CopyError(`no database at ${describe(config)} to copy from`);
  }
  const source = config.kind === 'sqlite' ? sqliteEnd(config.file) : await postgresEnd(config.url);
  try {
    await checkSchema(source, 'source', config);
    return source;
  } catch (error) {
    await source.close();
    throw error;
  }
}

/** Refuses an end without this release's schema: another version, none, or (SQLite) other objects. */
async function checkSchema(end: End, role: 'source' | 'target', config: StorageConfig): Promise<void> {
  const version = await end.schemaVersion();
  const url = config.kind === 'sqlite' ? `sqlite:${config.file}` : printableUrl(config.url);
  if (version === null) throw new CopyError(`the ${role} ${end.where} holds no Pet Store schema`);
  if (version < SCHEMA_VERSION) {
    throw new CopyError(
      `the ${role} ${end.where} is at schema version ${version}, this release's is ${SCHEMA_VERSION}: migrate it first with DATABASE_URL=${url} petstore migrate`,
    );
  }
  if (version > SCHEMA_VERSION) {
    throw new CopyError(
      `the ${role} ${end.where} is at schema version ${version}, newer than this release's ${SCHEMA_VERSION}: copy it with the release that made it`,
    );
  }
  // A trigger or a view in a file from elsewhere would be carried into the database the copy makes, and run
  // there on every write: refused before a row moves (and, for the source, before the target is created).
  const differences = await end.schemaDifferences(version);
  if (differences.length > 0) {
    throw new CopyError(
      `the ${role} ${end.where} does not have the schema this release's migrations make at version ${version} (${describeDifferences(differences)}): nothing was copied`,
    );
  }
}

/** Creates the target database if needed and brings its schema up to date, as `petstore migrate` does. */
async function openTarget(config: StorageConfig): Promise<End> {
  const storage =
    config.kind === 'sqlite'
      ? createSqliteStorage({ file: config.file, dataDir: config.dataDir, createDatabase: true })
      : await createPostgresStorage({ url: config.url, poolSize: 1, createDatabase: true });
  await storage.close();
  const target = config.kind === 'sqlite' ? sqliteEnd(config.file) : await postgresEnd(config.url);
  try {
    await checkSchema(target, 'target', config);
    return target;
  } catch (error) {
    await target.close();
    throw error;
  }
}

/** Stops a copy whose release does not know every table of the schema: it would leave one behind. */
async function checkTables(end: End): Promise<void> {
  const known = new Set(TABLES.map((table) => table.name));
  const unknown = (await end.tables()).filter(
    (name) => !known.has(name) && !NOT_DATA.has(name) && !REQUEST_LOG.test(name),
  );
  if (unknown.length > 0) {
    throw new CopyError(
      `${end.where} has tables this copy does not know (${unknown.join(', ')}): add them to TABLES in src/storage/copy.ts`,
    );
  }
}

/** The columns of a table, by name in the target's order; both ends must have the same ones. */
async function sharedColumns(source: End, target: End, table: string): Promise<string[]> {
  const theirs = (await source.columns(table)).map((column) => column.name);
  const ours = (await target.columns(table)).map((column) => column.name);
  if ([...theirs].sort().join(',') !== [...ours].sort().join(',')) {
    throw new CopyError(`the table ${table} has different columns in ${source.where} and ${target.where}`);
  }
  return ours;
}

function keyOf(table: TableSpec, names: string[], row: Value[]): Value[] {
  return table.key.map((name) => row[names.indexOf(name)] ?? null);
}

/** A table's rows as one line each, for its checksum: the JSON array of its values. */
function line(row: Value[]): string {
  return `${JSON.stringify(row)}\n`;
}

/** The count and SHA-256 of a table's rows as `end` reads them, in primary-key order. */
async function checksum(
  end: End,
  table: TableSpec,
  names: string[],
  batchSize: number,
): Promise<{ rows: number; checksum: string }> {
  const hash = createHash('sha256');
  let rows = 0;
  let after: Value[] | undefined;
  for (;;) {
    const page = await end.page(table, names, after, batchSize);
    for (const row of page) hash.update(line(row));
    rows += page.length;
    if (page.length < batchSize) break;
    after = keyOf(table, names, page[page.length - 1] as Value[]);
  }
  return { rows, checksum: hash.digest('hex') };
}

/**
 * Copies every table of `from` into `to`, which is created and migrated if needed and must hold no data.
 * @throws CopyError when refused (schema versions, a non-empty target) or when the verification fails.
 */
export async function copyDatabase(options: CopyOptions): Promise<CopyReport> {
  const started = performance.now();
  const batchSize = options.batchSize ?? 1000;
  const from = describe(options.from);
  const to = describe(options.to);
  if (from === to) throw new CopyError(`--from and --to name the same database (${from})`);
  const source = await openSource(options.from);
  let target: End | undefined;
  try {
    target = await openTarget(options.to);
    await checkTables(source);
    await checkTables(target);
    await source.begin('read');
    await target.begin('write');
    try {
      for (const table of TABLES) {
        if (table.singleton) continue;
        if ((await target.count(table.name)) > 0) {
          throw new CopyError(
            `the target ${target.where} is not empty: its table ${table.name} holds rows; copy into a new, empty database`,
          );
        }
      }
      const tables: CopiedTable[] = [];
      const sequences: { table: string; last: number }[] = [];
      for (const table of TABLES) {
        const names = await sharedColumns(source, target, table.name);
        const total = await source.count(table.name);
        if (table.singleton) await target.clear(table.name);
        const hash = createHash('sha256');
        let copied = 0;
        let highest = 0;
        let after: Value[] | undefined;
        for (;;) {
          const page = await source.page(table, names, after, batchSize);
          if (page.length > 0) {
            await target.insert(table, names, page);
            after = keyOf(table, names, page[page.length - 1] as Value[]);
            if (table.sequence !== undefined) highest = Number(after[0]);
          }
          for (const row of page) hash.update(line(row));
          copied += page.length;
          options.onProgress?.({ table: table.name, copied, total });
          if (page.length < batchSize) break;
        }
        if (table.sequence !== undefined) {
          await target.advance(table.name, Math.max(await source.sequence(table.name), highest));
          sequences.push({ table: table.name, last: await target.sequence(table.name) });
        }
        tables.push({ table: table.name, rows: copied, checksum: hash.digest('hex') });
      }
      // Read back from the target, in the same transaction: commit only what matches the source.
      for (const copied of tables) {
        const table = TABLES.find((spec) => spec.name === copied.table) as TableSpec;
        const names = await sharedColumns(source, target, table.name);
        const written = await checksum(target, table, names, batchSize);
        if (written.rows !== copied.rows || written.checksum !== copied.checksum) {
          throw new CopyError(
            `verification failed for ${table.name}: the source has ${copied.rows} rows (sha256 ${copied.checksum}), the target ${written.rows} (sha256 ${written.checksum}); nothing was copied`,
          );
        }
      }
      await target.commit();
      await source.rollback();
      return {
        from,
        to,
        tables,
        sequences,
        rows: tables.reduce((sum, table) => sum + table.rows, 0),
        ms: performance.now() - started,
      };
    } catch (error) {
      await target.rollback();
      await source.rollback();
      throw error;
    }
  } finally {
    await source.close();
    await target?.close();
  }
}
