import type { RequestRecord } from '../request-log/index.js';

/** The columns of the request log's table in both stores, in its order. */
export const REQUEST_LOG_COLUMNS =
  'at, request_id, key_id, actor, client, method, route, path, status, error_code, error_message, ' +
  'duration_ms, bytes, remaining, replayed, deprecated, instance, user_agent';

/** A row of the request log's table as either driver reads it: SQLite's booleans are 0 and 1. */
export interface RequestLogRow {
  at: number;
  request_id: string;
  key_id: string | null;
  actor: string | null;
  client: string | null;
  method: string;
  route: string | null;
  path: string;
  status: number;
  error_code: string | null;
  error_message: string | null;
  duration_ms: number;
  bytes: number;
  remaining: number | null;
  replayed: boolean | number;
  deprecated: boolean | number;
  instance: string;
  user_agent: string | null;
}

export const requestOfRow = (row: RequestLogRow): RequestRecord => ({
  at: row.at,
  requestId: row.request_id,
  keyId: row.key_id,
  actor: row.actor,
  client: row.client,
  method: row.method,
  route: row.route,
  path: row.path,
  status: row.status,
  errorCode: row.error_code,
  errorMessage: row.error_message,
  durationMs: row.duration_ms,
  bytes: row.bytes,
  remaining: row.remaining,
  replayed: Boolean(row.replayed),
  deprecated: Boolean(row.deprecated),
  instance: row.instance,
  userAgent: row.user_agent,
});
