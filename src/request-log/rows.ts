import type { RequestRecord, RowBatch } from './types.js';

/** The fields of a row, in the stores' column order (`at, request_id, key_id, …, user_agent`). */
export const FIELDS = 18;

/** Which fields are strings (indexes into the table) and which are numbers, in column order. */
export const IS_STRING: readonly boolean[] = [
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

/** A string field's number for null; a number field's (`remaining`) is NaN. */
const NULL = -1;

/** Rows room is first made for; it doubles as rows come, up to the batch's most. */
const FIRST_ROOM = 64;

/** Rows encoded one at a time into a batch of at most `most` rows. */
export class RowBatchBuilder {
  rows = 0;
  #numbers = new Float64Array(FIRST_ROOM * FIELDS);
  #at = 0;
  readonly #strings: string[] = [];
  readonly #indexes = new Map<string, number>();

  constructor(readonly most: number) {}

  get full(): boolean {
    return this.rows >= this.most;
  }

  add(record: RequestRecord): void {
    if (this.#at === this.#numbers.length) this.#grow();
    const numbers = this.#numbers;
    let at = this.#at;
    numbers[at++] = record.at;
    // Every request id is new: no lookup finds it.
    numbers[at++] = this.#strings.push(record.requestId) - 1;
    numbers[at++] = this.#text(record.keyId);
    numbers[at++] = this.#text(record.actor);
    numbers[at++] = this.#text(record.client);
    numbers[at++] = this.#text(record.method);
    numbers[at++] = this.#text(record.route);
    numbers[at++] = this.#text(record.path);
    numbers[at++] = record.status;
    numbers[at++] = this.#text(record.errorCode);
    numbers[at++] = this.#text(record.errorMessage);
    numbers[at++] = record.durationMs;
    numbers[at++] = record.bytes;
    numbers[at++] = record.remaining ?? Number.NaN;
    numbers[at++] = record.replayed ? 1 : 0;
    numbers[at++] = record.deprecated ? 1 : 0;
    numbers[at++] = this.#text(record.instance);
    numbers[at++] = this.#text(record.userAgent);
    this.#at = at;
    this.rows += 1;
  }

  /** The rows added, as a batch that owns its arrays: add nothing more. */
  build(): RowBatch {
    const strings = this.#strings;
    const ends = new Uint32Array(strings.length);
    let end = 0;
    for (let i = 0; i < strings.length; i += 1) {
      end += (strings[i] as string).length;
      ends[i] = end;
    }
    return { rows: this.rows, numbers: this.#numbers.subarray(0, this.#at), text: strings.join(''), ends };
  }

  #text(value: string | null): number {
    if (value === null) return NULL;
    let index = this.#indexes.get(value);
    if (index === undefined) {
      index = this.#strings.push(value) - 1;
      this.#indexes.set(value, index);
    }
    return index;
  }

  #grow(): void {
    const grown = new Float64Array(Math.min(this.#numbers.length * 2, this.most * FIELDS));
    grown.set(this.#numbers);
    this.#numbers = grown;
  }
}

/** Rows as one batch: for a store's tests, and what writes a few rows outside the request path. */
export function batchOf(records: readonly RequestRecord[]): RowBatch {
  const builder = new RowBatchBuilder(Math.max(records.length, 1));
  for (const record of records) builder.add(record);
  return builder.build();
}

/** The table's strings, in index order. */
export function stringsOf(batch: RowBatch): string[] {
  const { text, ends } = batch;
  const strings = new Array<string>(ends.length);
  let start = 0;
  for (let i = 0; i < ends.length; i += 1) {
    const end = ends[i] as number;
    strings[i] = text.slice(start, end);
    start = end;
  }
  return strings;
}

/**
 * Fills `values` with row `row`'s values, in column order: strings from `strings` (the batch's table), null
 * for none, booleans as 0 and 1.
 */
export function valuesOfRow(
  batch: RowBatch,
  strings: readonly string[],
  row: number,
  values: (string | number | null)[],
): void {
  const { numbers } = batch;
  const from = row * FIELDS;
  for (let field = 0; field < FIELDS; field += 1) {
    const number = numbers[from + field] as number;
    if (IS_STRING[field]) values[field] = number === NULL ? null : (strings[number] as string);
    else values[field] = Number.isNaN(number) ? null : number;
  }
}

/** The batch's rows as records again. */
export function recordsOf(batch: RowBatch): RequestRecord[] {
  const strings = stringsOf(batch);
  const values: (string | number | null)[] = new Array(FIELDS);
  const records: RequestRecord[] = [];
  const string = (field: number) => values[field] as string;
  const stringOrNull = (field: number) => values[field] as string | null;
  const number = (field: number) => values[field] as number;
  for (let row = 0; row < batch.rows; row += 1) {
    valuesOfRow(batch, strings, row, values);
    records.push({
      at: number(0),
      requestId: string(1),
      keyId: stringOrNull(2),
      actor: stringOrNull(3),
      client: stringOrNull(4),
      method: string(5),
      route: stringOrNull(6),
      path: string(7),
      status: number(8),
      errorCode: stringOrNull(9),
      errorMessage: stringOrNull(10),
      durationMs: number(11),
      bytes: number(12),
      remaining: values[13] as number | null,
      replayed: values[14] === 1,
      deprecated: values[15] === 1,
      instance: string(16),
      userAgent: stringOrNull(17),
    });
  }
  return records;
}
