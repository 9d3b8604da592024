import type { FastifyReply, FastifyRequest } from 'fastify';
import { isWritableInstant } from '../clock/index.js';
import {
  type AdminLoggedRequest,
  type LoggedRequest,
  type OwnRequestQuery,
  REQUESTS_PAGE,
  type RequestQuery,
} from '../contract/index.js';
import { ApiError } from '../errors/index.js';
import { cutPage, type DownloadFormat, queryTime, sendDownload } from '../http/index.js';
import type { ViewField } from './columns.js';
import type { RequestLog } from './log.js';
import type { RequestCursor, RequestFilter, RequestPage, RequestRecord } from './types.js';

/** How many rows an export reads from the store at a time. */
const EXPORT_BATCH = 1_000;

/** The request log is off: its operations answer as if they were not there, and say why. */
export function requestLogOff(): ApiError {
  return new ApiError('not_found', 'The request log is off on this service (REQUEST_LOG=off)');
}

/** A page's cursor: the last row's time and request id, base64url (opaque to clients). */
function cursorOf(record: Pick<RequestRecord, 'at' | 'requestId'>): string {
  return Buffer.from(`${record.at}.${record.requestId}`).toString('base64url');
}

function parseCursor(text: string): RequestCursor {
  const decoded = Buffer.from(text, 'base64url').toString('utf8');
  const dot = decoded.indexOf('.');
  const at = Number(decoded.slice(0, dot));
  const requestId = decoded.slice(dot + 1);
  // A time past the year 9999 is one PostgreSQL's timestamptz cannot hold: refused here, on both stores.
  if (dot < 1 || !Number.isSafeInteger(at) || !isWritableInstant(at) || at < 0 || requestId === '') {
    throw new ApiError(
      'validation_failed',
      'cursor is not one this service gave: take it from a Link header',
    );
  }
  return { at, requestId };
}

/** `404` as one status, `4xx` as 400 to 499 (the schema, and the CLI, let through only those shapes). */
export function statusRange(text: string): NonNullable<RequestFilter['status']> {
  if (text.endsWith('xx')) {
    const from = Number(text[0]) * 100;
    return { from, to: from + 99 };
  }
  return { from: Number(text), to: Number(text) };
}

/** The filter a query asks for, of one key when `keyId` is given (the key holder's own requests). */
export function filterOf(query: OwnRequestQuery & Partial<RequestQuery>, keyId?: string): RequestFilter {
  const filter: RequestFilter = {};
  const key = keyId ?? query.key;
  if (key !== undefined) filter.keyId = key;
  if (query.status !== undefined) filter.status = statusRange(query.status);
  if (query.code !== undefined) filter.errorCode = query.code;
  if (query.route !== undefined) filter.route = query.route;
  if (query.method !== undefined) filter.method = query.method;
  const from = queryTime(query.from, 'from');
  if (from !== undefined) filter.from = from;
  const to = queryTime(query.to, 'to');
  if (to !== undefined) filter.to = to;
  if (query.requestId !== undefined) filter.requestId = query.requestId;
  if (query.client !== undefined) filter.client = query.client;
  if (query.api !== undefined) filter.api = query.api;
  return filter;
}

/** The row as the key holder sees it. */
export function ownView(record: RequestRecord): LoggedRequest {
  return {
    requestId: record.requestId,
    at: new Date(record.at).toISOString(),
    method: record.method,
    path: record.path,
    route: record.route,
    status: record.status,
    keyId: record.keyId,
    client: record.client,
    errorCode: record.errorCode,
    errorMessage: record.errorMessage,
    durationMs: record.durationMs,
    bytes: record.bytes,
    rateLimitRemaining: record.remaining,
    replayed: record.replayed,
    deprecated: record.deprecated,
    userAgent: record.userAgent,
  };
}

/** The row as the operator sees it: with the admin token that asked and the instance that answered. */
export function operatorView(record: RequestRecord): AdminLoggedRequest {
  return { ...ownView(record), actor: record.actor, instance: record.instance };
}

/**
 * Answers one page of a filter, newest first, with `Link: <…cursor=…>; rel="next"` while more may follow.
 * The cursor is the last row's (time, request id): rows that arrive meanwhile are newer, so a page never
 * repeats or skips one.
 */
export async function sendPage<V>(
  request: FastifyRequest,
  reply: FastifyReply,
  log: RequestLog,
  filter: RequestFilter,
  query: { cursor?: string; limit?: number },
  view: (record: RequestRecord) => V,
): Promise<FastifyReply> {
  const limit = query.limit ?? REQUESTS_PAGE.default;
  const page: RequestPage = { ...filter, limit: limit + 1 };
  if (query.cursor !== undefined) page.before = parseCursor(query.cursor);
  const found = await log.list(page);
  const rows = cutPage(request, reply, found, limit, cursorOf, 'cursor');
  return reply.send(rows.map(view));
}

/** Every row of a filter, newest first, read a batch at a time. */
async function* allRows(
  log: RequestLog,
  filter: RequestFilter,
  view: (record: RequestRecord) => AdminLoggedRequest,
): AsyncGenerator<AdminLoggedRequest> {
  let before: RequestCursor | undefined;
  for (;;) {
    const rows = await log.list({ ...filter, limit: EXPORT_BATCH, ...(before ? { before } : {}) });
    for (const row of rows) yield view(row);
    const last = rows.at(-1);
    if (rows.length < EXPORT_BATCH || last === undefined) return;
    before = { at: last.at, requestId: last.requestId };
  }
}

/**
 * The columns of a CSV export, in their order (which is not the tables'): every field of the operator's view,
 * and every column of the log by its view's name; the compiler holds this list to both.
 */
const CSV_ORDER = {
  at: true,
  requestId: true,
  method: true,
  path: true,
  route: true,
  status: true,
  keyId: true,
  actor: true,
  client: true,
  errorCode: true,
  errorMessage: true,
  durationMs: true,
  bytes: true,
  rateLimitRemaining: true,
  replayed: true,
  deprecated: true,
  instance: true,
  userAgent: true,
} satisfies Record<keyof AdminLoggedRequest | ViewField, true>;

const CSV_COLUMNS = Object.keys(CSV_ORDER) as (keyof typeof CSV_ORDER)[];

/**
 * Streams every row of a filter as NDJSON or CSV (csv-stringify quotes what needs it, RFC 4180), as a
 * download named after the time of the export. Read a batch at a time, so memory stays flat however many.
 */
export function sendExport(
  reply: FastifyReply,
  log: RequestLog,
  filter: RequestFilter,
  options: { format: DownloadFormat; now: number; view: (record: RequestRecord) => AdminLoggedRequest },
): FastifyReply {
  const { format, now, view } = options;
  const rows = allRows(log, filter, view);
  return sendDownload(reply, rows, { format, columns: CSV_COLUMNS, name: 'requests', now });
}
