import type pg from 'pg';
import {
  IdempotencyConflict,
  type IdempotencyRecord,
  type IdempotencyRepository,
  type IdempotentWrite,
} from '../types.js';
import { type Queryable, transaction } from './transaction.js';

/**
 * Runs a create. Under an idempotency key it runs in one transaction that first takes the key's advisory
 * lock, so that while one instance creates under a key every other instance is told it is in use, and then
 * stores the answer beside the created row. `createdOf` picks the created entity out of the result, or
 * undefined when nothing was created (and so nothing is stored).
 */
export async function createOnce<R, T>(
  pool: pg.Pool,
  idempotent: IdempotentWrite<T> | undefined,
  create: (db: Queryable) => Promise<R>,
  createdOf: (result: R) => T | undefined,
): Promise<R> {
  if (idempotent === undefined) return create(pool);
  return transaction(pool, async (client) => {
    const { rows } = await client.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked',
      [`idempotency\n${idempotent.apiKeyId}\n${idempotent.key}`],
    );
    if (rows[0]?.locked !== true) throw new IdempotencyConflict('in_use');
    const result = await create(client);
    const created = createdOf(result);
    if (created !== undefined) await recordAnswer(client, idempotent, created);
    return result;
  });
}

/** Stores the answer; an expired one not purged yet is replaced, a live one means another stored it first. */
async function recordAnswer<T>(client: Queryable, write: IdempotentWrite<T>, created: T): Promise<void> {
  const { status, body } = write.answer(created);
  const stored = await client.query(
    `INSERT INTO idempotency_records (api_key_id, idempotency_key, request_digest, status, body, created_at)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (api_key_id, idempotency_key) DO UPDATE SET
       request_digest = excluded.request_digest, status = excluded.status, body = excluded.body,
       created_at = excluded.created_at
     WHERE idempotency_records.created_at < $7`,
    [write.apiKeyId, write.key, write.requestDigest, status, body, write.createdAt, write.expiredBefore],
  );
  if (stored.rowCount === 0) throw new IdempotencyConflict('recorded');
}

export function postgresIdempotency(pool: pg.Pool): IdempotencyRepository {
  return {
    async find(apiKeyId, key, notBefore): Promise<IdempotencyRecord | undefined> {
      const { rows } = await pool.query<{ request_digest: string; status: number; body: string }>(
        `SELECT request_digest, status, body FROM idempotency_records
         WHERE api_key_id = $1 AND idempotency_key = $2 AND created_at >= $3`,
        [apiKeyId, key, notBefore],
      );
      const row = rows[0];
      return row === undefined
        ? undefined
        : { requestDigest: row.request_digest, status: row.status, body: row.body };
    },
    async purge(before) {
      const { rowCount } = await pool.query('DELETE FROM idempotency_records WHERE created_at < $1', [
        before,
      ]);
      return rowCount ?? 0;
    },
  };
}
