import type { RequestRecord } from './columns.js';

export type { RequestRecord } from './columns.js';

/** Which rows a reader asks for; every filter narrows, and rows come newest first. */
export interface RequestFilter {
  keyId?: string;
  /** One status (`404`), or a class as its lowest and highest (`4xx`: 400 to 499). */
  status?: { from: number; to: number };
  errorCode?: string;
  route?: string;
  method?: string;
  /** From this time on (milliseconds, inclusive). */
  from?: number;
  /** Before this time (milliseconds, exclusive). */
  to?: number;
  requestId?: string;
  client?: string;
  /** Only the requests of one API: their path is under {@link API_PATHS}' prefix. */
  api?: keyof typeof API_PATHS;
}

/** Where each API's paths begin: a row is of the API whose prefix is its path, or begins its path before a `/`. */
export const API_PATHS = { v1: '/v1', admin: '/admin/v1' } as const;

/** Where the previous page ended: rows strictly older than this one (by time, then request id). */
export interface RequestCursor {
  at: number;
  requestId: string;
}

export interface RequestPage extends RequestFilter {
  limit: number;
  before?: RequestCursor;
}

/**
 * What a prune deleted past the kept days: rows the size bound took (on SQLite), those of callers without a
 * credential first, and the time of the oldest row it left.
 */
export interface Evicted {
  /** Rows without a key or an admin principal: strangers', refused or reading the docs. */
  anonymous: number;
  /** Rows of a key or an admin principal: taken only once no stranger's row was left. */
  identified: number;
  /** The oldest row left, in milliseconds; null for none. */
  oldestKept: number | null;
}

/** Where the request log keeps its rows: a SQLite file of its own, or a partitioned PostgreSQL table. */
export interface RequestLogStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Adds rows in one batch. */
  add(batch: RowBatch): Promise<void>;
  /** The rows of a filter, newest first, at most `limit`. */
  list(page: RequestPage): Promise<RequestRecord[]>;
  /**
   * Deletes what is past keeping: rows older than `before` (whole days: a partition at a time on
   * PostgreSQL) and, on SQLite, rows past `maxBytes`, the oldest of strangers' rows first; says what the size
   * bound took (none on PostgreSQL, which keeps by days alone).
   */
  prune(before: number, maxBytes: number): Promise<Evicted>;
  close(): Promise<void>;
}

/**
 * Rows of the request log as they wait for their store and cross to it: every field of every row a number
 * in one `Float64Array`, and each distinct string once, in a table the numbers index (a key id, a route or a
 * client address repeats from row to row), the table's strings joined in one text with their ends beside it.
 *
 * A row is encoded as its request is answered, so no object per request waits the quarter second until the
 * next write: kept as objects, the rows outlived the young generation and the garbage collector copied each
 * of them on, then the batch was encoded again on its way out. Posted to the SQLite writer thread, the two
 * arrays are transferred, not copied, and the table is one string rather than thousands (structured clone's
 * cost is per string: 3,000 rows posted in 0.1 to 0.3 ms so, their strings as an array in 0.35 to 1.5 ms, a
 * micro-benchmark on the build machine).
 */
export interface RowBatch {
  rows: number;
  numbers: Float64Array;
  /** The distinct strings, joined. */
  text: string;
  /** Where each string of the table ends in `text`; the first starts at 0. */
  ends: Uint32Array;
}
