import type { RequestRecord } from '../../request-log/index.js';

/**
 * A batch of request log rows as it crosses to the writer thread: every field of every row a number in one
 * `Float64Array`, which is transferred rather than copied, and each distinct string once, in a table the
 * numbers index (a key id, a route or a client address repeats from row to row). Posted as row objects, a
 * batch cost 0.75 µs a row to serialize on the server's thread and 1.6 µs to deserialize in the writer,
 * together half of what a row costs to insert; encoded so, 0.18 µs and under 0.1 µs (the list's traffic, a
 * micro-benchmark on the build machine; docs/performance.md).
 */
export interface RowBatch {
  rows: number;
  numbers: Float64Array;
  strings: string[];
}

/** The fields of a row, in the table's column order (REQUEST_LOG_COLUMNS). */
export const FIELDS = 18;

/** A string field's number for null; a number field's (`remaining`) is NaN. */
const NULL = -1;

export function encodeRows(records: readonly RequestRecord[]): RowBatch {
  const numbers = new Float64Array(records.length * FIELDS);
  const strings: string[] = [];
  const indexes = new Map<string, number>();
  const text = (value: string | null) => {
    if (value === null) return NULL;
    let index = indexes.get(value);
    if (index === undefined) {
      index = strings.push(value) - 1;
      indexes.set(value, index);
    }
    return index;
  };
  let at = 0;
  for (const r of records) {
    numbers[at++] = r.at;
    numbers[at++] = text(r.requestId);
    numbers[at++] = text(r.keyId);
    numbers[at++] = text(r.actor);
    numbers[at++] = text(r.client);
    numbers[at++] = text(r.method);
    numbers[at++] = text(r.route);
    numbers[at++] = text(r.path);
    numbers[at++] = r.status;
    numbers[at++] = text(r.errorCode);
    numbers[at++] = text(r.errorMessage);
    numbers[at++] = r.durationMs;
    numbers[at++] = r.bytes;
    numbers[at++] = r.remaining ?? Number.NaN;
    numbers[at++] = r.replayed ? 1 : 0;
    numbers[at++] = r.deprecated ? 1 : 0;
    numbers[at++] = text(r.instance);
    numbers[at++] = text(r.userAgent);
  }
  return { rows: records.length, numbers, strings };
}

/** Which fields are strings (indexes into the table) and which are numbers, in column order. */
const IS_STRING = [
  false, // at
  true, // request_id
  true, // key_id
  true, // actor
  true, // client
  true, // method
  true, // route
  true, // path
  false, // status
  true, // error_code
  true, // error_message
  false, // duration_ms
  false, // bytes
  false, // remaining
  false, // replayed
  false, // deprecated
  true, // instance
  true, // user_agent
];

/** Fills `values` with row `row`'s values, in column order, as SQLite takes them (0 and 1 for booleans). */
export function valuesOfRow(batch: RowBatch, row: number, values: (string | number | null)[]): void {
  const { numbers, strings } = batch;
  const from = row * FIELDS;
  for (let field = 0; field < FIELDS; field += 1) {
    const number = numbers[from + field] as number;
    if (IS_STRING[field]) values[field] = number === NULL ? null : (strings[number] as string);
    else values[field] = Number.isNaN(number) ? null : number;
  }
}
