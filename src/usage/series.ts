import type { DayCounts, UsageRepository } from './types.js';

/** A series of usage buckets, as the admin API answers it. */
export interface UsageSeries {
  key: string | null;
  granularity: 'hour' | 'day';
  from: string;
  to: string;
  buckets: (DayCounts & { start: string })[];
}

const UNIT_MS = { hour: 3_600_000, day: 86_400_000 } as const;
/** How a bucket is named in storage: `YYYY-MM-DDTHH` for an hour, `YYYY-MM-DD` for a day. */
const NAME_LENGTH = { hour: 13, day: 10 } as const;
const NONE: DayCounts = { success: 0, clientErrors: 0, rateLimited: 0, serverErrors: 0 };

/**
 * The usage of one key (or of every key) from the bucket that holds `from` to the one that holds `to`, every
 * bucket present, those without requests at 0, plus `pending` (counts this instance has not flushed, by the
 * bucket's name in storage). Answers why not, as a sentence, when the range is backwards or holds more than
 * `span` buckets.
 */
export async function usageSeries(
  usage: UsageRepository,
  query: {
    key: string | undefined;
    granularity: 'hour' | 'day';
    from: number | undefined;
    to: number;
    span: number;
    pending?: ReadonlyMap<string, DayCounts>;
  },
): Promise<UsageSeries | string> {
  const { key, granularity, span } = query;
  const unit = UNIT_MS[granularity];
  const last = Math.floor(query.to / unit) * unit;
  const first =
    query.from === undefined
      ? last - (granularity === 'hour' ? 47 : 89) * unit
      : Math.floor(query.from / unit) * unit;
  if (first > last) return 'from is after to';
  const count = (last - first) / unit + 1;
  if (count > span) return `${count} buckets were asked for; at most ${span} ${granularity}s a request`;

  const name = (ms: number) => new Date(ms).toISOString().slice(0, NAME_LENGTH[granularity]);
  const stored =
    granularity === 'hour'
      ? (await usage.hourly(key, name(first), name(last))).map(
          ({ hour, ...counts }) => [hour, counts] as const,
        )
      : (await usage.daily(key, name(first), name(last))).map(({ day, ...counts }) => [day, counts] as const);
  const byName = new Map<string, DayCounts>(stored);
  const buckets = [];
  for (let start = first; start <= last; start += unit) {
    const counts = { ...(byName.get(name(start)) ?? NONE) };
    const pending = query.pending?.get(name(start));
    if (pending !== undefined) {
      counts.success += pending.success;
      counts.clientErrors += pending.clientErrors;
      counts.rateLimited += pending.rateLimited;
      counts.serverErrors += pending.serverErrors;
    }
    buckets.push({ start: new Date(start).toISOString(), ...counts });
  }
  return {
    key: key ?? null,
    granularity,
    from: new Date(first).toISOString(),
    to: new Date(last + unit).toISOString(),
    buckets,
  };
}
