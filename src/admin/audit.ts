import type { FastifyReply } from 'fastify';
import { type AuditFilter, type AuditRecord, type AuditRepository, actorKindOf } from '../audit/index.js';
import type { Clock } from '../clock/index.js';
import { AUDIT_PAGE, type AuditEvent } from '../contract/index.js';
import { type AdminHandlers, type DownloadFormat, queryTime, sendDownload } from '../http/index.js';
import type { AdminTokenRepository } from '../identity/index.js';
import type { PeopleRepository } from '../people/index.js';

/** How many entries an export reads from the store at a time. */
const EXPORT_BATCH = 1_000;

/** Who an actor is, for people to read: a token's name, a person's name, subject and email. */
interface ActorInfo {
  name: string | null;
  subject: string | null;
  email: string | null;
}

/** The actors that have names: every admin token (revoked ones too) and every person. */
type Actors = ReadonlyMap<string, ActorInfo>;

/** An entry as the admin API shows it: with its actor's kind, and who a token or person actor is. */
function auditView(event: AuditRecord, actors: Actors): AuditEvent {
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
function sendAuditExport(
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

const isoOf = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** The handler of the audit log: a page of a filter, or every entry of it exported. */
export function auditHandlers(deps: {
  audit: AuditRepository;
  /** Every admin token, revoked ones too, and everyone who signed in: the audit names its actors. */
  adminTokens: Pick<AdminTokenRepository, 'list'>;
  people: Pick<PeopleRepository, 'all'>;
  clock: Clock;
}): Pick<AdminHandlers, 'listAuditEvents'> {
  const { audit, adminTokens, people, clock } = deps;
  /**
   * Actors are ids, for filters and scripts; people read names. A token is revoked and a person kept, never
   * deleted, so every token and person actor has one.
   */
  async function actorsOf(): Promise<Actors> {
    const [tokenRecords, everyone] = await Promise.all([adminTokens.list(), people.all()]);
    return new Map<string, ActorInfo>([
      ...tokenRecords.map((token) => [token.id, { name: token.name, subject: null, email: null }] as const),
      ...everyone.map(
        (person) =>
          [
            person.id,
            { name: person.name ?? person.email, subject: person.subject, email: person.email },
          ] as const,
      ),
    ]);
  }
  return {
    async listAuditEvents(request, reply) {
      const { query } = request;
      const from = isoOf(queryTime(query.from, 'from'));
      const to = isoOf(queryTime(query.to, 'to'));
      const filter: AuditFilter = {
        after: query.after ?? 0,
        limit: query.limit ?? AUDIT_PAGE.default,
        ...(query.before !== undefined ? { before: query.before } : {}),
        ...(query.target !== undefined ? { target: query.target } : {}),
        ...(query.actor !== undefined ? { actor: query.actor } : {}),
        ...(query.actorKind !== undefined ? { actorKind: query.actorKind } : {}),
        ...(from !== undefined ? { from } : {}),
        ...(to !== undefined ? { to } : {}),
        ...(query.order !== undefined ? { order: query.order } : {}),
      };
      const actors = await actorsOf();
      if (query.format !== undefined) {
        return sendAuditExport(reply, audit, filter, { format: query.format, now: clock.now(), actors });
      }
      return reply.send((await audit.list(filter)).map((event) => auditView(event, actors)));
    },
  };
}
