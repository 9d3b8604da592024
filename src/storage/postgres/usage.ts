import type pg from 'pg';
import type { DayCounts, UsageRepository } from '../../usage/index.js';
import { type Queryable, transaction } from './transaction.js';

/** The counts of a usage row as stored (BIGINT sums arrive as numbers: storage.ts parses INT8). */
interface CountRow {
  success: number | string;
  client_errors: number | string;
  rate_limited: number | string;
  server_errors: number | string;
}

const counts = (row: CountRow): DayCounts => ({
  success: Number(row.success),
  clientErrors: Number(row.client_errors),
  rateLimited: Number(row.rate_limited),
  serverErrors: Number(row.server_errors),
});

/** The sums of a usage table's rows, for the series of one key or of every key. */
const SUMS =
  'sum(success) AS success, sum(client_errors) AS client_errors, sum(rate_limited) AS rate_limited, sum(server_errors) AS server_errors';

/** Adds one row of counts to a usage table: instances adding at once add up, under the row's lock. */
async function upsert(
  client: Queryable,
  table: string,
  slot: string,
  row: DayCounts & { keyId: string },
  at: string,
): Promise<void> {
  await client.query(
    `INSERT INTO ${table} (key_id, ${slot}, success, client_errors, rate_limited, server_errors)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (key_id, ${slot}) DO UPDATE SET
       success = ${table}.success + excluded.success,
       client_errors = ${table}.client_errors + excluded.client_errors,
       rate_limited = ${table}.rate_limited + excluded.rate_limited,
       server_errors = ${table}.server_errors + excluded.server_errors`,
    [row.keyId, at, row.success, row.clientErrors, row.rateLimited, row.serverErrors],
  );
}

/**
 * Key usage in PostgreSQL: each flush adds its counts to what is stored, by day and by hour, in one
 * transaction, so instances flushing at once add up (the upserts take the rows' locks; nothing is
 * overwritten).
 */
export function postgresUsage(pool: pg.Pool): UsageRepository {
  /** A series of one table, for one key or (`keyId` null) for all. */
  const series = async (table: string, slot: string, keyId: string | undefined, from: string, to: string) => {
    const { rows } = await pool.query<CountRow & { slot: string }>(
      `SELECT ${slot} AS slot, ${SUMS} FROM ${table}
       WHERE ($1::text IS NULL OR key_id = $1) AND ${slot} BETWEEN $2 AND $3
       GROUP BY ${slot} ORDER BY ${slot}`,
      [keyId ?? null, from, to],
    );
    return rows;
  };
  return {
    async add(batch) {
      await transaction(pool, async (client) => {
        for (const day of batch.days) await upsert(client, 'key_usage', 'day', day, day.day);
        for (const hour of batch.hours) await upsert(client, 'key_usage_hourly', 'hour', hour, hour.hour);
        for (const { keyId, at } of batch.lastUsed) {
          // ISO 8601 times in UTC compare as text.
          await client.query('UPDATE api_keys SET last_used_at = GREATEST(last_used_at, $1) WHERE id = $2', [
            at,
            keyId,
          ]);
        }
        for (const call of batch.deprecated) {
          await client.query(
            `INSERT INTO key_deprecated_calls (key_id, operation_id, calls, last_called_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (key_id, operation_id) DO UPDATE SET
               calls = key_deprecated_calls.calls + excluded.calls,
               last_called_at = GREATEST(key_deprecated_calls.last_called_at, excluded.last_called_at)`,
            [call.keyId, call.operationId, call.calls, call.lastCalledAt],
          );
        }
      });
    },
    async hourly(keyId, fromHour, toHour) {
      const rows = await series('key_usage_hourly', 'hour', keyId, fromHour, toHour);
      return rows.map((row) => ({ hour: row.slot, ...counts(row) }));
    },
    async daily(keyId, fromDay, toDay) {
      const rows = await series('key_usage', 'day', keyId, fromDay, toDay);
      return rows.map((row) => ({ day: row.slot, ...counts(row) }));
    },
    async keysOn(day, limit) {
      const { rows } = await pool.query<CountRow & { key_id: string }>(
        `SELECT key_id, success, client_errors, rate_limited, server_errors FROM key_usage WHERE day = $1
         ORDER BY success + client_errors + server_errors DESC, key_id LIMIT $2`,
        [day, limit],
      );
      return rows.map((row) => ({ keyId: row.key_id, ...counts(row) }));
    },
    async pruneHours(beforeHour) {
      const { rowCount } = await pool.query('DELETE FROM key_usage_hourly WHERE hour < $1', [beforeHour]);
      return rowCount ?? 0;
    },
    async deprecated(keyId) {
      const { rows } = await pool.query<{ operation_id: string; calls: number; last_called_at: string }>(
        'SELECT operation_id, calls, last_called_at FROM key_deprecated_calls WHERE key_id = $1 ORDER BY operation_id',
        [keyId],
      );
      return rows.map((row) => ({
        operationId: row.operation_id,
        calls: row.calls,
        lastCalledAt: row.last_called_at,
      }));
    },
  };
}
