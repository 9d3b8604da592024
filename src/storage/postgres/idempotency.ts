import type pg from 'pg';
import { type IdempotencyRow, toIdempotencyRecord } from '../rows.js';
import { IdempotencyConflict, type IdempotencyRepository, type KeptAnswer } from '../types.js';
import type { Queryable } from './transaction.js';

/**
 * Answers kept for `Idempotency-Key` replays, in PostgreSQL: the lookup and purge, and the two steps the
 * unit of work of `create` runs inside the create's own transaction. `claim` takes the key's advisory lock
 * first, so that while one instance creates under a key every other instance is told it is in use; `keep`
 * then stores the answer beside the created row. An expired answer not purged yet is replaced in place; a
 * live one makes the create fail with `IdempotencyConflict('recorded')`, which rolls it back.
 */
export function postgresIdempotency(pool: pg.Pool): {
  repository: IdempotencyRepository;
  claim(db: Queryable, answer: KeptAnswer<unknown>): Promise<void>;
  keep<T>(db: Queryable, answer: KeptAnswer<T>, created: T): Promise<void>;
} {
  return {
    repository: {
      async find(apiKeyId, key, notBefore) {
        const { rows } = await pool.query<IdempotencyRow>(
          `SELECT request_digest, status, body FROM idempotency_records
           WHERE api_key_id = $1 AND idempotency_key = $2 AND created_at >= $3`,
          [apiKeyId, key, notBefore],
        );
        return rows[0] === undefined ? undefined : toIdempotencyRecord(rows[0]);
      },
      async purge(before) {
        const { rowCount } = await pool.query('DELETE FROM idempotency_records WHERE created_at < $1', [
          before,
        ]);
        return rowCount ?? 0;
      },
    },
    async claim(db, answer) {
      const { rows } = await db.query<{ locked: boolean }>(
        'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked',
        [`idempotency\n${answer.apiKeyId}\n${answer.key}`],
      );
      if (rows[0]?.locked !== true) throw new IdempotencyConflict('in_use');
    },
    async keep(db, answer, created) {
      const stored = await db.query(
        `INSERT INTO idempotency_records (api_key_id, idempotency_key, request_digest, status, body, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (api_key_id, idempotency_key) DO UPDATE SET
           request_digest = excluded.request_digest, status = excluded.status, body = excluded.body,
           created_at = excluded.created_at
         WHERE idempotency_records.created_at < $7`,
        [
          answer.apiKeyId,
          answer.key,
          answer.requestDigest,
          answer.status,
          answer.body(created),
          answer.createdAt,
          answer.expiredBefore,
        ],
      );
      if (stored.rowCount === 0) throw new IdempotencyConflict('recorded');
    },
  };
}
