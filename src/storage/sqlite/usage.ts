import type { UsageRepository } from '../../usage/index.js';
import type { Database } from './driver.js';
import type { WriteQueue } from './write-queue.js';

/** Key usage in SQLite: each flush adds its counts to what is stored, in one group transaction. */
export function sqliteUsage(db: Database, writes: WriteQueue): UsageRepository {
  const addDay = db.prepare(
    `INSERT INTO key_usage (key_id, day, success, client_errors, rate_limited, server_errors)
     VALUES (@keyId, @day, @success, @clientErrors, @rateLimited, @serverErrors)
     ON CONFLICT (key_id, day) DO UPDATE SET
       success = success + excluded.success, client_errors = client_errors + excluded.client_errors,
       rate_limited = rate_limited + excluded.rate_limited, server_errors = server_errors + excluded.server_errors`,
  );
  // ISO 8601 times in UTC compare as text.
  const lastUsed = db.prepare<{ keyId: string; at: string }>(
    'UPDATE api_keys SET last_used_at = max(coalesce(last_used_at, @at), @at) WHERE id = @keyId',
  );
  const addCalls = db.prepare(
    `INSERT INTO key_deprecated_calls (key_id, operation_id, calls, last_called_at)
     VALUES (@keyId, @operationId, @calls, @lastCalledAt)
     ON CONFLICT (key_id, operation_id) DO UPDATE SET
       calls = calls + excluded.calls, last_called_at = max(last_called_at, excluded.last_called_at)`,
  );
  const days = db.prepare<
    [string, string],
    { day: string; success: number; client_errors: number; rate_limited: number; server_errors: number }
  >(
    'SELECT day, success, client_errors, rate_limited, server_errors FROM key_usage WHERE key_id = ? AND day >= ? ORDER BY day',
  );
  const calls = db.prepare<[string], { operation_id: string; calls: number; last_called_at: string }>(
    'SELECT operation_id, calls, last_called_at FROM key_deprecated_calls WHERE key_id = ? ORDER BY operation_id',
  );
  return {
    async add(batch) {
      await writes.run(() => {
        for (const day of batch.days) addDay.run(day);
        for (const used of batch.lastUsed) lastUsed.run(used);
        for (const call of batch.deprecated) addCalls.run(call);
      });
    },
    async days(keyId, fromDay) {
      return days.all(keyId, fromDay).map((row) => ({
        day: row.day,
        success: row.success,
        clientErrors: row.client_errors,
        rateLimited: row.rate_limited,
        serverErrors: row.server_errors,
      }));
    },
    async deprecated(keyId) {
      return calls.all(keyId).map((row) => ({
        operationId: row.operation_id,
        calls: row.calls,
        lastCalledAt: row.last_called_at,
      }));
    },
  };
}
