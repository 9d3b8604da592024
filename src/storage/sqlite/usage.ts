import type { DayCounts, UsageRepository } from '../../usage/index.js';
import type { Database } from './driver.js';
import type { WriteQueue } from './write-queue.js';

/** The counts of a usage row as stored, and as they are read back. */
interface CountRow {
  success: number;
  client_errors: number;
  rate_limited: number;
  server_errors: number;
}

const counts = (row: CountRow): DayCounts => ({
  success: row.success,
  clientErrors: row.client_errors,
  rateLimited: row.rate_limited,
  serverErrors: row.server_errors,
});

/** The sums of a usage table's rows, for the series of one key or of every key. */
const SUMS =
  'sum(success) AS success, sum(client_errors) AS client_errors, sum(rate_limited) AS rate_limited, sum(server_errors) AS server_errors';

/**
 * Key usage in SQLite: each flush adds its counts to what is stored, by day and by hour, in one group
 * transaction.
 */
export function sqliteUsage(db: Database, writes: WriteQueue): UsageRepository {
  const upsert = (table: string, slot: string) =>
    db.prepare(
      `INSERT INTO ${table} (key_id, ${slot}, success, client_errors, rate_limited, server_errors)
       VALUES (@keyId, @${slot}, @success, @clientErrors, @rateLimited, @serverErrors)
       ON CONFLICT (key_id, ${slot}) DO UPDATE SET
         success = success + excluded.success, client_errors = client_errors + excluded.client_errors,
         rate_limited = rate_limited + excluded.rate_limited, server_errors = server_errors + excluded.server_errors`,
    );
  const addDay = upsert('key_usage', 'day');
  const addHour = upsert('key_usage_hourly', 'hour');
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
  /** A series of one table, for one key (`key_id = ?`) or for all (`?` bound to null). */
  const series = (table: string, slot: string) =>
    db.prepare<[string | null, string | null, string, string], CountRow & { slot: string }>(
      `SELECT ${slot} AS slot, ${SUMS} FROM ${table}
       WHERE (? IS NULL OR key_id = ?) AND ${slot} BETWEEN ? AND ?
       GROUP BY ${slot} ORDER BY ${slot}`,
    );
  const hourly = series('key_usage_hourly', 'hour');
  const daily = series('key_usage', 'day');
  const keysOn = db.prepare<[string, number], CountRow & { key_id: string }>(
    `SELECT key_id, success, client_errors, rate_limited, server_errors FROM key_usage WHERE day = ?
     ORDER BY success + client_errors + server_errors DESC, key_id LIMIT ?`,
  );
  const prune = db.prepare<[string]>('DELETE FROM key_usage_hourly WHERE hour < ?');
  const calls = db.prepare<[string], { operation_id: string; calls: number; last_called_at: string }>(
    'SELECT operation_id, calls, last_called_at FROM key_deprecated_calls WHERE key_id = ? ORDER BY operation_id',
  );
  return {
    async add(batch) {
      await writes.run(() => {
        for (const day of batch.days) addDay.run(day);
        for (const hour of batch.hours) addHour.run(hour);
        for (const used of batch.lastUsed) lastUsed.run(used);
        for (const call of batch.deprecated) addCalls.run(call);
      });
    },
    async hourly(keyId, fromHour, toHour) {
      const id = keyId ?? null;
      return hourly.all(id, id, fromHour, toHour).map((row) => ({ hour: row.slot, ...counts(row) }));
    },
    async daily(keyId, fromDay, toDay) {
      const id = keyId ?? null;
      return daily.all(id, id, fromDay, toDay).map((row) => ({ day: row.slot, ...counts(row) }));
    },
    async keysOn(day, limit) {
      return keysOn.all(day, limit).map((row) => ({ keyId: row.key_id, ...counts(row) }));
    },
    async pruneHours(beforeHour) {
      return writes.run(() => prune.run(beforeHour).changes);
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
