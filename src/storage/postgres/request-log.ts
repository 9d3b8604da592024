import {
  API_PATHS,
  COLUMNS,
  columnsOf,
  type RequestColumns,
  type RequestFilter,
  type RequestLogStore,
  type RequestPage,
} from '../../request-log/index.js';
import { COLUMN_NAMES, type RequestLogRow, requestOfRow, selectList } from '../request-log-row.js';
import { pgDriver } from './driver.js';

const DAY_MS = 86_400_000;

/**
 * The request log's table, partitioned by UTC day (declarative partitioning): a day past keeping is dropped
 * whole, which costs nothing like a delete of its rows. The request log makes it itself, as it does its
 * SQLite file: the API's migrations never touch it, and dropping it loses only log rows. Indexes made on
 * the parent are made on every partition: the same three as SQLite's (sqlite/request-log-rows.ts says why).
 */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS request_log (
    at            timestamptz NOT NULL,
    request_id    text NOT NULL,
    key_id        text,
    actor         text,
    client        text,
    method        text NOT NULL,
    route         text,
    path          text NOT NULL,
    status        smallint NOT NULL,
    error_code    text,
    error_message text,
    duration_ms   real NOT NULL,
    bytes         integer NOT NULL,
    remaining     integer,
    replayed      boolean NOT NULL,
    deprecated    boolean NOT NULL,
    instance      text NOT NULL,
    user_agent    text
  ) PARTITION BY RANGE (at);
  CREATE INDEX IF NOT EXISTS request_log_by_at ON request_log (at, request_id);
  CREATE INDEX IF NOT EXISTS request_log_by_key ON request_log (key_id, at);
  CREATE INDEX IF NOT EXISTS request_log_by_request_id ON request_log (request_id);
`;

/** An arbitrary constant naming the request log's lock among PostgreSQL's advisory locks. */
const SCHEMA_LOCK = 7_420_113_040;

/** The partition of a UTC day: `request_log_20261128`. */
const partitionOf = (day: number) =>
  `request_log_${new Date(day).toISOString().slice(0, 10).replaceAll('-', '')}`;
const dayStart = (at: number) => at - (at % DAY_MS);
const iso = (ms: number) => new Date(ms).toISOString();

const SELECT = `SELECT ${selectList((column) => `(extract(epoch FROM ${column}) * 1000)::float8`)} FROM request_log`;

/** One batch in one statement: each column an array of its type, unnested into rows. */
const INSERT = `INSERT INTO request_log (${COLUMN_NAMES})
  SELECT * FROM unnest(${COLUMNS.map(({ pg }, index) => `$${index + 1}::${pg}[]`).join(', ')})`;

/** The insert's values, a column's array each; a time is written as ISO 8601 text, which `timestamptz` reads. */
const insertValues = (columns: RequestColumns): unknown[] =>
  COLUMNS.map(({ field, kind }) =>
    kind === 'time' ? (columns[field] as number[]).map(iso) : columns[field],
  );

/** The WHERE clause of a filter and its values, in PostgreSQL's dialect. */
function whereOf(filter: RequestFilter & { before?: RequestPage['before'] }): {
  sql: string;
  values: unknown[];
} {
  const clauses: string[] = [];
  const values: unknown[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const { keyId, status, errorCode, route, method, from, to, requestId, client, api, before } = filter;
  if (keyId !== undefined) clauses.push(`key_id = ${param(keyId)}`);
  if (status !== undefined) {
    clauses.push(
      status.from === status.to
        ? `status = ${param(status.from)}`
        : `status BETWEEN ${param(status.from)} AND ${param(status.to)}`,
    );
  }
  if (errorCode !== undefined) clauses.push(`error_code = ${param(errorCode)}`);
  if (route !== undefined) clauses.push(`route = ${param(route)}`);
  if (method !== undefined) clauses.push(`method = ${param(method)}`);
  if (from !== undefined) clauses.push(`at >= ${param(iso(from))}::timestamptz`);
  if (to !== undefined) clauses.push(`at < ${param(iso(to))}::timestamptz`);
  if (requestId !== undefined) clauses.push(`request_id = ${param(requestId)}`);
  if (client !== undefined) clauses.push(`client = ${param(client)}`);
  if (api !== undefined) {
    const prefix = API_PATHS[api];
    clauses.push(
      `(path = ${param(prefix)} OR substr(path, 1, ${param(prefix.length + 1)}) = ${param(`${prefix}/`)})`,
    );
  }
  if (before !== undefined) {
    clauses.push(`(at, request_id) < (${param(iso(before.at))}::timestamptz, ${param(before.requestId)})`);
  }
  return { sql: clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`, values };
}

/** The statement of a page of rows, newest first, and its values. */
export function listQuery(page: RequestPage): { text: string; values: unknown[] } {
  const { sql, values } = whereOf(page);
  return {
    // The table's `at`, named whole: a bare `at` is the output column (milliseconds, computed), by which
    // PostgreSQL sorted every matching row (200 ms over 2 million) instead of reading an index's newest.
    text: `${SELECT} ${sql} ORDER BY request_log.at DESC, request_id DESC LIMIT $${values.length + 1}`,
    values: [...values, page.limit],
  };
}

/** PostgreSQL's SQLSTATE for a row that no partition takes: one dropped by another instance's pruning. */
const NO_PARTITION = '23514';

/**
 * The request log in PostgreSQL, on a pool of its own (two connections): the API's queries never queue
 * behind a batch of log rows. Each instance inserts its batches with one statement (arrays unnested), and
 * makes the partitions of the days it writes, and of tomorrow, as it first needs them.
 */
export async function postgresRequestLog(url: string): Promise<RequestLogStore> {
  const pool = new (pgDriver().Pool)({ connectionString: url, max: 2, connectionTimeoutMillis: 5_000 });
  // An idle connection that the server closed is an error event of the pool: without a listener it would
  // end the process. The next query opens another connection.
  pool.on('error', () => {});
  /** The days whose partitions this instance knows exist. */
  const made = new Set<number>();
  async function ensurePartitions(days: Iterable<number>): Promise<void> {
    const missing = [...new Set(days)].filter((day) => !made.has(day));
    if (missing.length === 0) return;
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      // Instances starting together would race on CREATE ... IF NOT EXISTS, which is not atomic.
      await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
      for (const day of missing) {
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${partitionOf(day)} PARTITION OF request_log
             FOR VALUES FROM ('${iso(day)}') TO ('${iso(day + DAY_MS)}')`,
        );
      }
      await client.query('COMMIT');
      for (const day of missing) made.add(day);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }
  {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
      await client.query(SCHEMA);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      client.release();
      await pool.end();
      throw error;
    }
    client.release();
  }
  const today = dayStart(Date.now());
  await ensurePartitions([today, today + DAY_MS]);

  return {
    kind: 'postgres',
    async add(batch) {
      if (batch.rows === 0) return;
      const columns = columnsOf(batch);
      const days = columns.at.map(dayStart);
      const values = insertValues(columns);
      await ensurePartitions(days);
      try {
        await pool.query(INSERT, values);
      } catch (error) {
        if ((error as { code?: unknown }).code !== NO_PARTITION) throw error;
        // A day another instance pruned meanwhile (rows written on a skewed clock, say): made again.
        made.clear();
        await ensurePartitions(days);
        await pool.query(INSERT, values);
      }
    },
    async list(page) {
      const { text, values } = listQuery(page);
      const { rows } = await pool.query<RequestLogRow>(text, values);
      return rows.map(requestOfRow);
    },
    async prune(before) {
      // Whole days only: a partition goes once its last moment is older than `before`.
      const { rows } = await pool.query<{ name: string }>(
        `SELECT child.relname AS name FROM pg_inherits
           JOIN pg_class parent ON parent.oid = pg_inherits.inhparent
           JOIN pg_class child ON child.oid = pg_inherits.inhrelid
         WHERE parent.relname = 'request_log'`,
      );
      const tomorrow = dayStart(Date.now()) + DAY_MS;
      await ensurePartitions([tomorrow]);
      for (const { name } of rows) {
        const match = /^request_log_(\d{4})(\d{2})(\d{2})$/.exec(name);
        if (match === null) continue;
        const day = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
        if (day + DAY_MS > before) continue;
        await pool.query(`DROP TABLE IF EXISTS ${name}`);
        made.delete(day);
      }
      // No size bound here: PostgreSQL keeps by days alone (docs/request-log.md).
      return { anonymous: 0, identified: 0, oldestKept: null };
    },
    close: () => pool.end(),
  };
}
