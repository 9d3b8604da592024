import {
  IdempotencyConflict,
  type IdempotencyRecord,
  type IdempotencyRepository,
  type IdempotentWrite,
} from '../types.js';
import type { Database } from './driver.js';
import type { WriteQueue } from './write-queue.js';

/** Stores the answer of an idempotent create; called inside the create's own write, so in its transaction. */
export type RecordAnswer = <T>(write: IdempotentWrite<T> | undefined, created: T) => void;

interface RecordRow {
  request_digest: string;
  status: number;
  body: string;
}

/**
 * Answers kept for `Idempotency-Key` replays. An expired answer that was not purged yet is replaced in place;
 * a live one makes the create fail with `IdempotencyConflict('recorded')`, which rolls back its savepoint.
 */
export function sqliteIdempotency(
  db: Database,
  writes: WriteQueue,
): { repository: IdempotencyRepository; recordAnswer: RecordAnswer } {
  const find = db.prepare<[string, string, number], RecordRow>(
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

  const recordAnswer: RecordAnswer = (write, created) => {
    if (write === undefined) return;
    const { status, body } = write.answer(created);
    const { apiKeyId, key, requestDigest, createdAt, expiredBefore } = write;
    const stored = upsert.run({ apiKeyId, key, requestDigest, status, body, createdAt, expiredBefore });
    if (stored.changes === 0) throw new IdempotencyConflict('recorded');
  };

  return {
    recordAnswer,
    repository: {
      async find(apiKeyId, key, notBefore): Promise<IdempotencyRecord | undefined> {
        const row = find.get(apiKeyId, key, notBefore);
        return row === undefined
          ? undefined
          : { requestDigest: row.request_digest, status: row.status, body: row.body };
      },
      purge(before) {
        return writes.run(() => purge.run(before).changes);
      },
    },
  };
}
