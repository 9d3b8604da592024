import { ACTOR_KIND_SQL, type AuditEntry, type AuditRepository } from '../../audit/index.js';
import { type AuditRow, auditParameters, toAuditRecord } from '../rows.js';
import type { Queryable } from './transaction.js';

/**
 * The audit record in PostgreSQL: `append` runs on the client of the transaction that makes the change, and
 * a trigger refuses every UPDATE, DELETE and TRUNCATE of the table.
 */
export function postgresAudit(pool: Queryable): {
  repository: AuditRepository;
  append(db: Queryable, entry: AuditEntry): Promise<void>;
} {
  const append = async (db: Queryable, entry: AuditEntry) => {
    await db.query(
      'INSERT INTO audit_events (at, actor, action, target, details) VALUES ($1, $2, $3, $4, $5)',
      [entry.at, entry.actor, entry.action, entry.target, JSON.stringify(entry.details)],
    );
  };
  return {
    repository: {
      async list(filter) {
        const p = auditParameters(filter);
        const { rows } = await pool.query<AuditRow>(
          `SELECT id, at, actor, action, target, details FROM audit_events
           WHERE id > $1 AND ($2::bigint IS NULL OR id < $2)
           AND ($3::text IS NULL OR target = $3) AND ($4::text IS NULL OR actor = $4)
           AND ($5::text IS NULL OR at >= $5) AND ($6::text IS NULL OR at < $6)
           AND ($8::text IS NULL OR ${ACTOR_KIND_SQL} = $8)
           ORDER BY id ${filter.order === 'desc' ? 'DESC' : 'ASC'} LIMIT $7`,
          [p.after, p.before, p.target, p.actor, p.from, p.to, p.limit, p.actorKind],
        );
        return rows.map(toAuditRecord);
      },
      record: (entry) => append(pool, entry),
    },
    append,
  };
}
