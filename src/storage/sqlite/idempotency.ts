import { type IdempotencyRow, toIdempotencyRecord } from '../rows.js';
import { IdempotencyConflict, type IdempotencyRepository, type KeptAnswer } from '../types.js';
import type { Database } from './driver.js';
import type { WriteQueue } from './write-queue.js';

/**
 * Answers kept for `Idempotency-Key` replays, in SQLite: the lookup and purge, and `keep`, which the unit
 * of work of `create` runs inside the create's own transaction. An expired answer not purged yet is
 * replaced in place; a live one makes the create fail with `IdempotencyConflict('recorded')`, which rolls
 * back its savepoint. (No lock is needed: the group transaction holds SQLite's one write lock.)
 */
export function sqliteIdempotency(
  db: Database,
  writes: WriteQueue,
): { repository: IdempotencyRepository; keep<T>(answer: KeptAnswer<T>, created: T): void } {
  const find = db.prepare<[string, string, number], IdempotencyRow>(
    `SELECT request_digest, status, body FROM idempotency_records
     WHERE api_key_id = ? AND idempotency_key = ? AND created_at >= ?`,
  );
  const upsert = db.prepare(
    `INSERT INTO idempotency_records (api_key_id, idempotency_key, request_digest, status, body, created_at)
     VALUES (@apiKeyId, @key, @requestDigest, @status, @body, @createdAt)
     ON CONFLICT (api_key_id, idempotency_key) DO UPDATE SET
       request_digest = excluded.request_digest, status = excluded.status, body = excluded.body,
       created_at = excluded.created_at
     WHERE idempotency_records.created_at < @expiredBefore`,
  );
  const purge = db.prepare<[number]>('DELETE FROM idempotency_records WHERE created_at < ?');

  return {
    repository: {
      async find(apiKeyId, key, notBefore) {
        const row = find.get(apiKeyId, key, notBefore);
        return row === undefined ? undefined : toIdempotencyRecord(row);
      },
      purge(before) {
        return writes.run(() => purge.run(before).changes);
      },
    },
    keep(answer, created) {
      const { apiKeyId, key, requestDigest, createdAt, expiredBefore, status } = answer;
      const body = answer.body(created);
      const stored = upsert.run({ apiKeyId, key, requestDigest, status, body, createdAt, expiredBefore });
      if (stored.changes === 0) throw new IdempotencyConflict('recorded');
    },
  };
}
