import type pg from 'pg';
import type { UsageRepository } from '../../usage/index.js';
import { transaction } from './transaction.js';

/**
 * Key usage in PostgreSQL: each flush adds its counts to what is stored, in one transaction, so instances
 * flushing at once add up (the upserts take the rows' locks; nothing is overwritten).
 */
export function postgresUsage(pool: pg.Pool): UsageRepository {
  return {
    async add(batch) {
      await transaction(pool, async (client) => {
        for (const day of batch.days) {
          await client.query(
            `INSERT INTO key_usage (key_id, day, success, client_errors, rate_limited, server_errors)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (key_id, day) DO UPDATE SET
               success = key_usage.success + excluded.success,
               client_errors = key_usage.client_errors + excluded.client_errors,
               rate_limited = key_usage.rate_limited + excluded.rate_limited,
               server_errors = key_usage.server_errors + excluded.server_errors`,
            [day.keyId, day.day, day.success, day.clientErrors, day.rateLimited, day.serverErrors],
          );
        }
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
    async days(keyId, fromDay) {
      const { rows } = await pool.query<{
        day: string;
        success: number;
        client_errors: number;
        rate_limited: number;
        server_errors: number;
      }>(
        'SELECT day, success, client_errors, rate_limited, server_errors FROM key_usage WHERE key_id = $1 AND day >= $2 ORDER BY day',
        [keyId, fromDay],
      );
      return rows.map((row) => ({
        day: row.day,
        success: row.success,
        clientErrors: row.client_errors,
        rateLimited: row.rate_limited,
        serverErrors: row.server_errors,
      }));
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
