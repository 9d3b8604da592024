import type { AuditEntry, AuditRepository } from '../../audit/index.js';
import { type AuditRow, toAuditRecord } from '../rows.js';
import type { Queryable } from './transaction.js';

/**
 * The audit record in PostgreSQL: `append` runs on the client of the transaction that makes the change, and
 * a trigger refuses every UPDATE, DELETE and TRUNCATE of the table.
 */
export function postgresAudit(pool: Queryable): {
  repository: AuditRepository;
  append(db: Queryable, entry: AuditEntry): Promise<void>;
} {
  return {
    repository: {
      async list(query) {
        const { rows } = await pool.query<AuditRow>(
          `SELECT id, at, actor, action, target, details FROM audit_events
           WHERE id > $1 AND ($2::text IS NULL OR target = $2) ORDER BY id LIMIT $3`,
          [query.after, query.target ?? null, query.limit],
        );
        return rows.map(toAuditRecord);
      },
    },
    async append(db, entry) {
      await db.query(
        'INSERT INTO audit_events (at, actor, action, target, details) VALUES ($1, $2, $3, $4, $5)',
        [entry.at, entry.actor, entry.action, entry.target, JSON.stringify(entry.details)],
      );
    },
  };
}
