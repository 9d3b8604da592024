import { COLUMNS, type FieldWhere, type RequestRecord } from '../request-log/index.js';

/** The columns of the request log's table in both stores, in its order (`at, request_id, …`). */
export const COLUMN_NAMES = COLUMNS.map(({ column }) => column).join(', ');

/**
 * The columns a store selects, each under its field's name (`request_id AS "requestId"`), so that a row read
 * is a record but for SQLite's booleans; `time` is the expression that reads a time column as milliseconds.
 */
export function selectList(time: (column: string) => string): string {
  return COLUMNS.map(({ column, field, kind }) => {
    const value = kind === 'time' ? time(column) : column;
    return value === field ? field : `${value} AS "${field}"`;
  }).join(', ');
}

type BooleanField = FieldWhere<{ kind: 'boolean' }>;

const BOOLEANS = COLUMNS.filter(({ kind }) => kind === 'boolean').map(({ field }) => field as BooleanField);

/** A row of the request log's table as either driver reads it (selectList): SQLite's booleans are 0 and 1. */
export type RequestLogRow = Omit<RequestRecord, BooleanField> & Record<BooleanField, boolean | number>;

/** A row read as the record it is: its booleans made booleans, in place (the row is the driver's new object). */
export function requestOfRow(row: RequestLogRow): RequestRecord {
  for (const field of BOOLEANS) row[field] = Boolean(row[field]);
  return row as RequestRecord;
}
