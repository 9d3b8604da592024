import {
  COLUMNS,
  type ColumnKind,
  type FieldWhere,
  type RequestField,
  type RequestRecord,
} from './columns.js';
import type { RowBatch } from './types.js';

/** The fields of a row: the columns of {@link COLUMNS}, in their order. */
export const FIELDS = COLUMNS.length;

/**
 * How a batch holds each kind of column: a text as its index in the batch's table of strings, a boolean as 0
 * or 1, a number as itself.
 */
const HELD_AS = {
  text: 'text',
  integer: 'number',
  real: 'number',
  time: 'number',
  boolean: 'boolean',
} as const satisfies Record<ColumnKind, 'text' | 'number' | 'boolean'>;

type Held = (typeof HELD_AS)[ColumnKind];
type FieldHeldAs<H extends Held> = FieldWhere<{
  kind: { [K in ColumnKind]: (typeof HELD_AS)[K] extends H ? K : never }[ColumnKind];
}>;

/** A field and its place in a row. */
interface Slot<F extends RequestField> {
  readonly position: number;
  readonly field: F;
}

/** The slots of the columns a batch holds as `held`: those whose values repeat from row to row, or not. */
function slotsOf<H extends Held>(held: H, repeats = true): readonly Slot<FieldHeldAs<H>>[] {
  return COLUMNS.flatMap((column, position) =>
    HELD_AS[column.kind] === held && (column.repeats ?? true) === repeats
      ? [{ position, field: column.field as FieldHeldAs<H> }]
      : [],
  );
}

// Precomputed once: the row writer runs per request, and loops over these without a lookup of its own.
const TEXTS = slotsOf('text');
/** Texts no other row has (request ids): every one is new, so no lookup would find it. */
const NEW_TEXTS = slotsOf('text', false) as readonly Slot<FieldWhere<{ repeats: false }>>[];
const NUMBERS = slotsOf('number');
const BOOLEANS = slotsOf('boolean');

/** Which fields are strings (indexes into the table) and which are numbers, in column order. */
const IS_STRING: readonly boolean[] = COLUMNS.map((column) => HELD_AS[column.kind] === 'text');

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
    // Written out in the columns' order, not looped over them: the loop's keyed reads of the record cost 2.7
    // to 3 times as much a row (247 against 92 ns a row, in batches of 1,000 built side by side). A column
    // added to columns.ts and not here misplaces every field after it, which rows.test.ts's round trip finds.
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

/** A batch's rows column by column: each field's values, as a record holds them, in row order. */
export type RequestColumns = { [F in RequestField]: RequestRecord[F][] };

/** The batch's rows column by column, for a store that inserts a batch as arrays. */
export function columnsOf(batch: RowBatch): RequestColumns {
  const strings = stringsOf(batch);
  const { numbers, rows } = batch;
  const columns: Partial<Record<RequestField, unknown[]>> = {};
  for (const { field, position } of [...NEW_TEXTS, ...TEXTS]) {
    const values = new Array<string | null>(rows);
    for (let row = 0; row < rows; row += 1) {
      const number = numbers[row * FIELDS + position] as number;
      values[row] = number === NULL ? null : (strings[number] as string);
    }
    columns[field] = values;
  }
  for (const { field, position } of NUMBERS) {
    const values = new Array<number | null>(rows);
    for (let row = 0; row < rows; row += 1) {
      const number = numbers[row * FIELDS + position] as number;
      values[row] = Number.isNaN(number) ? null : number;
    }
    columns[field] = values;
  }
  for (const { field, position } of BOOLEANS) {
    const values = new Array<boolean>(rows);
    for (let row = 0; row < rows; row += 1) values[row] = numbers[row * FIELDS + position] === 1;
    columns[field] = values;
  }
  return columns as RequestColumns;
}

/** The batch's rows as records again. */
export function recordsOf(batch: RowBatch): RequestRecord[] {
  const columns = columnsOf(batch);
  const records: RequestRecord[] = [];
  for (let row = 0; row < batch.rows; row += 1) {
    const record: Partial<Record<RequestField, unknown>> = {};
    for (const { field } of COLUMNS) record[field] = columns[field][row];
    records.push(record as RequestRecord);
  }
  return records;
}
