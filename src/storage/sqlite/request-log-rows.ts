import type { Evicted } from '../../request-log/index.js';
import {
  API_PATHS,
  FIELDS,
  type RequestFilter,
  type RequestPage,
  type RequestRecord,
  type RowBatch,
  stringsOf,
  valuesOfRow,
} from '../../request-log/index.js';
import { COLUMN_NAMES, type RequestLogRow, requestOfRow, selectList } from '../request-log-row.js';
import type { Database } from './driver.js';

/**
 * The request log's SQLite file: one table, in the file's own schema (the API's migrations never touch it;
 * deleting the file loses only log rows). Incremental auto-vacuum, so that pruning gives the space back.
 * Rows are ordered by time, then request id; the rowid is the order they were written in, which the size
 * bound deletes by. Three indexes, each a cost of every row (bench:request-log): time, for every search
 * newest first; a key's rows by time, the key holder's and the support desk's commonest search; the request
 * id, for the id a customer quotes. A status, a route or a method is searched along the time index: one on
 * status cost a tenth more a row for a filter that usually matches many rows anyway. A fourth, partial index
 * holds only the rows of callers without a credential, which the size bound deletes first: it costs nothing
 * for a key's rows.
 */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS requests (
    at            INTEGER NOT NULL,
    request_id    TEXT NOT NULL,
    key_id        TEXT,
    actor         TEXT,
    client        TEXT,
    method        TEXT NOT NULL,
    route         TEXT,
    path          TEXT NOT NULL,
    status        INTEGER NOT NULL,
    error_code    TEXT,
    error_message TEXT,
    duration_ms   REAL NOT NULL,
    bytes         INTEGER NOT NULL,
    remaining     INTEGER,
    replayed      INTEGER NOT NULL,
    deprecated    INTEGER NOT NULL,
    instance      TEXT NOT NULL,
    user_agent    TEXT
  );
  CREATE INDEX IF NOT EXISTS requests_by_at ON requests (at, request_id);
  CREATE INDEX IF NOT EXISTS requests_by_key ON requests (key_id, at);
  CREATE INDEX IF NOT EXISTS requests_by_request_id ON requests (request_id);
  CREATE INDEX IF NOT EXISTS requests_anonymous ON requests (at) WHERE key_id IS NULL AND actor IS NULL;
`;

/** What a page reads: a time is kept as milliseconds already. */
const SELECT = `SELECT ${selectList((column) => column)} FROM requests`;

/** The WHERE clause of a filter and its values, in SQLite's dialect. */
export function whereOf(filter: RequestFilter & { before?: RequestPage['before'] }): {
  sql: string;
  values: (string | number)[];
} {
  const clauses: string[] = [];
  const values: (string | number)[] = [];
  const add = (clause: string, ...more: (string | number)[]) => {
    clauses.push(clause);
    values.push(...more);
  };
  if (filter.keyId !== undefined) add('key_id = ?', filter.keyId);
  if (filter.status !== undefined) {
    if (filter.status.from === filter.status.to) add('status = ?', filter.status.from);
    else add('status BETWEEN ? AND ?', filter.status.from, filter.status.to);
  }
  if (filter.errorCode !== undefined) add('error_code = ?', filter.errorCode);
  if (filter.route !== undefined) add('route = ?', filter.route);
  if (filter.method !== undefined) add('method = ?', filter.method);
  if (filter.from !== undefined) add('at >= ?', filter.from);
  if (filter.to !== undefined) add('at < ?', filter.to);
  if (filter.requestId !== undefined) add('request_id = ?', filter.requestId);
  if (filter.client !== undefined) add('client = ?', filter.client);
  if (filter.api !== undefined) {
    const prefix = API_PATHS[filter.api];
    add('(path = ? OR substr(path, 1, ?) = ?)', prefix, prefix.length + 1, `${prefix}/`);
  }
  if (filter.before !== undefined) {
    add('(at, request_id) < (?, ?)', filter.before.at, filter.before.requestId);
  }
  return { sql: clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`, values };
}

/** How many rows one pruning statement deletes: short transactions, so a writer is never held long. */
const PRUNE_CHUNK = 5_000;

/** The request log's rows in an open SQLite database: the worker's side of `sqliteRequestLog`. */
export function requestRows(db: Database) {
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  // A crash may lose the last rows written (docs/request-log.md); the file is never corrupt.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // The write-ahead log is emptied at each checkpoint; this keeps its file from staying at its peak.
  db.pragma('journal_size_limit = 16777216');
  db.exec(SCHEMA);
  const insert = db.prepare(
    `INSERT INTO requests (${COLUMN_NAMES}) VALUES (${Array(FIELDS).fill('?').join(', ')})`,
  );
  const insertAll = db.transaction((batch: RowBatch) => {
    const values: (string | number | null)[] = new Array(FIELDS);
    const strings = stringsOf(batch);
    for (let row = 0; row < batch.rows; row += 1) {
      valuesOfRow(batch, strings, row, values);
      // Spread: better-sqlite3 binds arguments 0.4 µs a row faster than one array (a micro-benchmark).
      insert.run(...values);
    }
  });
  const deleteOlder = db.prepare(
    `DELETE FROM requests WHERE rowid IN (SELECT rowid FROM requests WHERE at < ? LIMIT ${PRUNE_CHUNK})`,
  );
  const deleteOldest = db.prepare(
    'DELETE FROM requests WHERE rowid IN (SELECT rowid FROM requests ORDER BY rowid LIMIT ?)',
  );
  // The partial index's own condition, word for word, so that SQLite reads the index.
  const deleteOldestAnonymous = db.prepare(
    'DELETE FROM requests WHERE rowid IN (SELECT rowid FROM requests WHERE key_id IS NULL AND actor IS NULL ORDER BY at LIMIT ?)',
  );
  const oldest = db.prepare('SELECT min(at) FROM requests').pluck();
  // The rows there are, about: rowids only grow, and the oldest go first, so the range counts them.
  const rowRange = db.prepare('SELECT coalesce(max(rowid) - min(rowid) + 1, 0) AS rows FROM requests');
  const usedBytes = () => {
    const pages = db.pragma('page_count', { simple: true }) as number;
    const free = db.pragma('freelist_count', { simple: true }) as number;
    return (pages - free) * (db.pragma('page_size', { simple: true }) as number);
  };
  /** Deletes up to `due` rows of `statement`, in short statements; says how many went. */
  const deleteUpTo = (statement: typeof deleteOldest, due: number) => {
    let deleted = 0;
    while (deleted < due) {
      const { changes } = statement.run(Math.min(due - deleted, PRUNE_CHUNK));
      if (changes === 0) break;
      deleted += changes;
    }
    return deleted;
  };
  return {
    add(batch: RowBatch): void {
      insertAll(batch);
    },
    list(page: RequestPage): RequestRecord[] {
      const { sql, values } = whereOf(page);
      const rows = db
        .prepare(`${SELECT} ${sql} ORDER BY at DESC, request_id DESC LIMIT ?`)
        .all(...values, page.limit) as RequestLogRow[];
      return rows.map(requestOfRow);
    },
    prune(before: number, maxBytes: number): Evicted {
      let deleted = 0;
      for (;;) {
        const { changes } = deleteOlder.run(before);
        deleted += changes;
        if (changes < PRUNE_CHUNK) break;
      }
      // Past the bound, rows go until a tenth of it is free again: as many as the bytes a row takes on
      // average say, then measured again. Strangers' rows go first, oldest first, so a flood without a key
      // (every 401 and 429 is a row) never pushes out the rows of the keys and tokens that were served.
      const evicted: Evicted = { anonymous: 0, identified: 0, oldestKept: null };
      for (let used = usedBytes(); used > maxBytes; used = usedBytes()) {
        const { rows } = rowRange.get() as { rows: number };
        if (rows === 0) break;
        const due = Math.ceil(((used - maxBytes * 0.9) / used) * rows);
        const anonymous = deleteUpTo(deleteOldestAnonymous, due);
        const identified = deleteUpTo(deleteOldest, due - anonymous);
        evicted.anonymous += anonymous;
        evicted.identified += identified;
        if (anonymous + identified === 0) break;
      }
      deleted += evicted.anonymous + evicted.identified;
      if (deleted > 0) db.pragma('incremental_vacuum');
      if (evicted.anonymous + evicted.identified > 0) evicted.oldestKept = oldest.get() as number | null;
      return evicted;
    },
  };
}
