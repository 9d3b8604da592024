import path from 'node:path';
import { printableUrl } from '../log/index.js';
import { pgDriver } from './postgres/driver.js';
import { type Database, Sqlite, type Statement } from './sqlite/driver.js';
import { schemaDifferences } from './sqlite/schema-check.js';

// The two ends `petstore copy` (copy.ts) reads from and writes to: a SQLite file or a PostgreSQL database,
// each reading and writing rows by its own column types, so that the same row reads the same from either.

/** A table the copy knows: its primary key, for order and paging; `sequence`, its generated id. */
export interface TableSpec {
  name: string;
  key: readonly string[];
  sequence?: 'id';
  /** One row the migrations insert themselves (a version counter): replaced, not refused. */
  singleton?: true;
}

/** Every table of the schema, parents before children. A table missing here stops the copy (checkTables). */
export const TABLES: readonly TableSpec[] = [
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

/**
 * A value as both backends give it to the copy: integers as decimal text, text as it is, NULL as null. The
 * checksum hashes these, so the same row reads the same from either side.
 */
export type Value = string | null;

interface Column {
  name: string;
  /** What the backend stores, as far as the copy cares. */
  type: 'integer' | 'text' | 'timestamp';
}

/** One end of a copy, on either backend. */
export interface End {
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

export function sqliteEnd(file: string): End {
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

export async function postgresEnd(url: string): Promise<End> {
  // No query timeout: a batch of the copy may wait for locks, and the whole copy is one transaction. int8
  // stays text (pg's default), so ids and counters come across exact.
  const client = new (pgDriver().Client)({ connectionString: url, keepAlive: true });
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
