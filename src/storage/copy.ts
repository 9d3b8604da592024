import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { printableUrl } from '../log/index.js';
import { type End, postgresEnd, sqliteEnd, TABLES, type TableSpec, type Value } from './copy-ends.js';
import { createPostgresStorage } from './postgres/storage.js';
import { SCHEMA_VERSION } from './schema.js';
import { describeDifferences } from './sqlite/schema-check.js';
import { createSqliteStorage } from './sqlite/storage.js';
import type { StorageConfig } from './types.js';

/**
 * `petstore copy`: every table of one Pet Store database into another, empty one, SQLite or PostgreSQL on
 * either side. The whole copy is one transaction on the target, committed only after every table's count and
 * checksum match the source's: a failure anywhere (the target cut off, a constraint, a mismatch) leaves the
 * target as empty as it was. Committing each batch instead would leave half a copy behind, and it could not
 * even be cleaned up, since the audit log refuses DELETE and TRUNCATE on PostgreSQL.
 */

/** Tables that belong to the engine or to the migrations, never copied. */
const NOT_DATA = new Set(['schema_migrations', 'sqlite_sequence', 'sqlite_stat1', 'sqlite_stat4']);

/** The request log's table and its daily partitions (PostgreSQL): a log, not data; never copied. */
const REQUEST_LOG = /^request_log(_\d{8})?$/;

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

/** Opens an end of the copy, held to this release's schema (`checkSchema`): closed again when it is not. */
async function openEnd(config: StorageConfig, role: 'source' | 'target'): Promise<End> {
  const end = config.kind === 'sqlite' ? sqliteEnd(config.file) : await postgresEnd(config.url);
  try {
    await checkSchema(end, role, config);
    return end;
  } catch (error) {
    await end.close();
    throw error;
  }
}

/** Opens the source without changing it: it must exist and hold the current schema, and nothing else. */
async function openSource(config: StorageConfig): Promise<End> {
  if (config.kind === 'sqlite' && !fs.existsSync(config.file)) {
    throw new CopyError(`no database at ${describe(config)} to copy from`);
  }
  return openEnd(config, 'source');
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
  return openEnd(config, 'target');
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
