import type { AuditEntry, AuditRepository } from '../../audit/index.js';
import { type AuditRow, toAuditRecord } from '../rows.js';
import type { Database } from './driver.js';

/**
 * The audit record in SQLite: `append` runs inside the write that makes the change (so in its transaction),
 * and triggers refuse every UPDATE and DELETE of the table.
 */
export function sqliteAudit(db: Database): { repository: AuditRepository; append(entry: AuditEntry): void } {
  const insert = db.prepare<[string, string, string, string, string]>(
    'INSERT INTO audit_events (at, actor, action, target, details) VALUES (?, ?, ?, ?, ?)',
  );
  const list = db.prepare<{ after: number; limit: number; target: string | null }, AuditRow>(
    `SELECT id, at, actor, action, target, details FROM audit_events
     WHERE id > @after AND (@target IS NULL OR target = @target) ORDER BY id LIMIT @limit`,
  );
  return {
    repository: {
      async list(query) {
        return list
          .all({ after: query.after, limit: query.limit, target: query.target ?? null })
          .map(toAuditRecord);
      },
    },
    append(entry) {
      insert.run(entry.at, entry.actor, entry.action, entry.target, JSON.stringify(entry.details));
    },
  };
}
