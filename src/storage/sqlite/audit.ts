import { ACTOR_KIND_SQL, type AuditEntry, type AuditRepository } from '../../audit/index.js';
import { type AuditParameters, type AuditRow, auditParameters, toAuditRecord } from '../rows.js';
import type { Database } from './driver.js';
import type { WriteQueue } from './write-queue.js';

/**
 * The audit record in SQLite: `append` runs inside the write that makes the change (so in its transaction),
 * and triggers refuse every UPDATE and DELETE of the table.
 */
export function sqliteAudit(
  db: Database,
  writes: WriteQueue,
): { repository: AuditRepository; append(entry: AuditEntry): void } {
  const insert = db.prepare<[string, string, string, string, string]>(
    'INSERT INTO audit_events (at, actor, action, target, details) VALUES (?, ?, ?, ?, ?)',
  );
  const where = `WHERE id > @after AND (@before IS NULL OR id < @before)
     AND (@target IS NULL OR target = @target) AND (@actor IS NULL OR actor = @actor)
     AND (@actorKind IS NULL OR ${ACTOR_KIND_SQL} = @actorKind)
     AND (@from IS NULL OR at >= @from) AND (@to IS NULL OR at < @to)`;
  const select = 'SELECT id, at, actor, action, target, details FROM audit_events';
  const list = {
    asc: db.prepare<AuditParameters, AuditRow>(`${select} ${where} ORDER BY id LIMIT @limit`),
    desc: db.prepare<AuditParameters, AuditRow>(`${select} ${where} ORDER BY id DESC LIMIT @limit`),
  };
  const append = (entry: AuditEntry) => {
    insert.run(entry.at, entry.actor, entry.action, entry.target, JSON.stringify(entry.details));
  };
  return {
    repository: {
      async list(filter) {
        return list[filter.order ?? 'asc'].all(auditParameters(filter)).map(toAuditRecord);
      },
      record: (entry) => writes.run(() => append(entry)),
    },
    append,
  };
}
