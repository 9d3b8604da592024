import { type Clock, parseTimestamp } from '../clock/index.js';
import { USAGE_SPAN } from '../contract/index.js';
import { ApiError } from '../errors/index.js';
import { type AdminHandlers, queryTime } from '../http/index.js';
import type { KeyManager } from '../keys/index.js';
import { type Decision, limitsFor, type RateLimiter, type RateLimitPolicy } from '../ratelimit/index.js';
import { type UsageRecorder, type UsageRepository, usageSeries } from '../usage/index.js';
import { noKey } from './api-keys.js';

/** The requests a window's decision says were spent of its day. */
async function dayUsed(decision: Decision | Promise<Decision>): Promise<number> {
  const { day } = await decision;
  return day.limit - day.remaining;
}

/** The handlers of the keys' usage: a series by hour or day, and the keys by their use of a day. */
export function usageHandlers(deps: {
  usage: UsageRepository;
  recorder: UsageRecorder;
  keys: KeyManager;
  rateLimit: RateLimitPolicy;
  /** Today's day window of each key, as the key's own page shows it. */
  limiter: Pick<RateLimiter, 'peekKey'>;
  clock: Clock;
}): Pick<AdminHandlers, 'getUsage' | 'listKeyUsage'> {
  const { usage, recorder, keys, rateLimit, limiter, clock } = deps;
  return {
    async getUsage(request, reply) {
      const { query } = request;
      if (query.key !== undefined && (await keys.get(query.key)) === undefined) throw noKey(query.key);
      const granularity = query.granularity ?? 'hour';
      const span = granularity === 'hour' ? USAGE_SPAN.hours : USAGE_SPAN.days;
      const to = queryTime(query.to, 'to') ?? clock.now();
      const from = queryTime(query.from, 'from');
      // This instance's counts are stored first; the others' reach storage within their flush interval.
      await recorder.flush();
      const series = await usageSeries(usage, { key: query.key, granularity, from, to, span });
      if (typeof series === 'string') throw new ApiError('validation_failed', series);
      return reply.send(series);
    },
    async listKeyUsage(request, reply) {
      const { query } = request;
      const day = query.day ?? new Date(clock.now()).toISOString().slice(0, 10);
      if (parseTimestamp(`${day}T00:00:00Z`) === undefined) {
        throw new ApiError('validation_failed', `day ${day} does not exist`);
      }
      await recorder.flush();
      const [used, records] = await Promise.all([usage.keysOn(day, query.limit ?? 10), keys.list()]);
      const byId = new Map(records.map((record) => [record.id, record]));
      const today = day === new Date(clock.now()).toISOString().slice(0, 10);
      const rows = await Promise.all(
        used.map(async (counts) => {
          const record = byId.get(counts.keyId);
          if (record === undefined) return [];
          const limits = limitsFor(rateLimit, record);
          // Today's use is the day window the limiter enforces, which the key's own page shows too (its
          // budget's, shared with the keys a rotation links); an earlier day's, what storage counted.
          const spent = today
            ? await dayUsed(limiter.peekKey(record))
            : counts.success + counts.clientErrors + counts.serverErrors;
          return [
            {
              ...counts,
              name: record.name,
              plan: record.plan,
              used: spent,
              perMinute: limits.perMinute,
              perDay: limits.perDay,
              dayShare: limits.perDay > 0 ? spent / limits.perDay : 0,
            },
          ];
        }),
      );
      return reply.send(rows.flat());
    },
  };
}
