import type { FastifyReply } from 'fastify';
import { type AuditFilter, type AuditRecord, type AuditRepository, actorKindOf } from '../audit/index.js';
import type { AuditEvent } from '../contract/index.js';
import { type DownloadFormat, sendDownload } from '../http/index.js';

/** How many entries an export reads from the store at a time. */
const EXPORT_BATCH = 1_000;

/** An entry as the admin API shows it: with its actor's kind, and the name of a token actor. */
export function auditView(event: AuditRecord, tokenNames: ReadonlyMap<string, string>): AuditEvent {
  return {
    ...event,
    actorKind: actorKindOf(event.actor),
    actorName: tokenNames.get(event.actor) ?? null,
  };
}

/** Every entry of a filter in its order, a batch at a time: the next batch starts past the last id seen. */
async function* allEvents(
  audit: AuditRepository,
  filter: AuditFilter,
  tokenNames: ReadonlyMap<string, string>,
): AsyncGenerator<AuditEvent> {
  let page: AuditFilter = { ...filter, limit: EXPORT_BATCH };
  for (;;) {
    const events = await audit.list(page);
    for (const event of events) yield auditView(event, tokenNames);
    const last = events.at(-1);
    if (events.length < EXPORT_BATCH || last === undefined) return;
    page = filter.order === 'desc' ? { ...page, before: last.id } : { ...page, after: last.id };
  }
}

const CSV_COLUMNS: (keyof AuditEvent)[] = [
  'id',
  'at',
  'actorKind',
  'actor',
  'actorName',
  'action',
  'target',
  'details',
];

/** Streams every entry of a filter (its `limit` aside) as NDJSON or CSV, `details` as JSON in its cell. */
export function sendAuditExport(
  reply: FastifyReply,
  audit: AuditRepository,
  filter: AuditFilter,
  options: { format: DownloadFormat; now: number; tokenNames: ReadonlyMap<string, string> },
): FastifyReply {
  const rows = allEvents(audit, filter, options.tokenNames);
  return sendDownload(reply, rows, {
    format: options.format,
    columns: CSV_COLUMNS,
    name: 'audit',
    now: options.now,
  });
}
