import type { FastifyReply } from 'fastify';
import { type AuditFilter, type AuditRecord, type AuditRepository, actorKindOf } from '../audit/index.js';
import type { AuditEvent } from '../contract/index.js';
import { type DownloadFormat, sendDownload } from '../http/index.js';

/** How many entries an export reads from the store at a time. */
const EXPORT_BATCH = 1_000;

/** Who an actor is, for people to read: a token's name, a person's name, subject and email. */
export interface ActorInfo {
  name: string | null;
  subject: string | null;
  email: string | null;
}

/** The actors that have names: every admin token (revoked ones too) and every person. */
export type Actors = ReadonlyMap<string, ActorInfo>;

/** An entry as the admin API shows it: with its actor's kind, and who a token or person actor is. */
export function auditView(event: AuditRecord, actors: Actors): AuditEvent {
  const actor = actors.get(event.actor);
  return {
    ...event,
    actorKind: actorKindOf(event.actor),
    actorName: actor?.name ?? null,
    actorSubject: actor?.subject ?? null,
    actorEmail: actor?.email ?? null,
  };
}

/** Every entry of a filter in its order, a batch at a time: the next batch starts past the last id seen. */
async function* allEvents(
  audit: AuditRepository,
  filter: AuditFilter,
  actors: Actors,
): AsyncGenerator<AuditEvent> {
  let page: AuditFilter = { ...filter, limit: EXPORT_BATCH };
  for (;;) {
    const events = await audit.list(page);
    for (const event of events) yield auditView(event, actors);
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
  'actorSubject',
  'actorEmail',
  'action',
  'target',
  'details',
];

/** Streams every entry of a filter (its `limit` aside) as NDJSON or CSV, `details` as JSON in its cell. */
export function sendAuditExport(
  reply: FastifyReply,
  audit: AuditRepository,
  filter: AuditFilter,
  options: { format: DownloadFormat; now: number; actors: Actors },
): FastifyReply {
  const rows = allEvents(audit, filter, options.actors);
  return sendDownload(reply, rows, {
    format: options.format,
    columns: CSV_COLUMNS,
    name: 'audit',
    now: options.now,
  });
}
