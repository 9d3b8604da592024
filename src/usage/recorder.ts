import type { Clock } from '../clock/index.js';
import { type Logger, warnUnlessOutage } from '../log/index.js';
import type { DayCounts, DeprecatedUsage, UsageBatch, UsageRepository } from './types.js';

/** How often counts reach storage: never a write per request, at most a few seconds behind. */
export const USAGE_FLUSH_MS = 2_000;

const DAY_MS = 86_400_000;

/** The UTC day of a time, `YYYY-MM-DD`. */
export const dayOf = (at: number) => new Date(at - (at % DAY_MS)).toISOString().slice(0, 10);

export interface UsageRecorder {
  /** Counts one answered request of a key by its status. In memory: the hot path writes nothing. */
  record(keyId: string, status: number, now: number): void;
  /** Counts one call of a key to a deprecated operation. */
  recordDeprecatedCall(keyId: string, operationId: string, now: number): void;
  /** What this instance counted for a key and has not flushed yet. */
  pending(keyId: string): {
    days: Map<string, DayCounts>;
    lastUsed: number | undefined;
    deprecated: DeprecatedUsage[];
  };
  /** Writes everything counted so far; counts that fail to write are kept for the next flush. */
  flush(): Promise<void>;
  /** Flushes every few seconds until `stop`. */
  start(): void;
  /** Stops the timer and flushes what is left. */
  stop(): Promise<void>;
}

const empty = (): DayCounts => ({ success: 0, clientErrors: 0, rateLimited: 0, serverErrors: 0 });

/** Which count an answer's status adds to. */
function outcomeOf(status: number): keyof DayCounts {
  if (status === 429) return 'rateLimited';
  if (status >= 500) return 'serverErrors';
  if (status >= 400) return 'clientErrors';
  return 'success';
}

/**
 * Per-key usage, counted in memory and flushed as additive deltas (DESIGN.md section 10): exact with any
 * number of instances writing, since each adds only what it counted.
 */
export function createUsageRecorder(deps: {
  usage: UsageRepository;
  clock: Clock;
  logger: Logger;
  flushMs?: number;
}): UsageRecorder {
  const { usage, logger } = deps;
  /** By key id, then by day. */
  let days = new Map<string, Map<string, DayCounts>>();
  let lastUsed = new Map<string, number>();
  /** By key id and operation id. */
  let deprecated = new Map<string, DeprecatedUsage>();
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();

  function merge(batch: {
    days: typeof days;
    lastUsed: typeof lastUsed;
    deprecated: typeof deprecated;
  }): void {
    for (const [keyId, byDay] of batch.days) {
      for (const [day, counts] of byDay) {
        const into = days.get(keyId)?.get(day);
        if (into === undefined) {
          const keyDays = days.get(keyId) ?? new Map<string, DayCounts>();
          days.set(keyId, keyDays);
          keyDays.set(day, counts);
        } else {
          for (const outcome of Object.keys(counts) as (keyof DayCounts)[]) into[outcome] += counts[outcome];
        }
      }
    }
    for (const [keyId, at] of batch.lastUsed) lastUsed.set(keyId, Math.max(at, lastUsed.get(keyId) ?? 0));
    for (const [slot, calls] of batch.deprecated) {
      const into = deprecated.get(slot);
      if (into === undefined) deprecated.set(slot, calls);
      else {
        into.calls += calls.calls;
        if (calls.lastCalledAt > into.lastCalledAt) into.lastCalledAt = calls.lastCalledAt;
      }
    }
  }

  async function write(): Promise<void> {
    if (days.size === 0 && deprecated.size === 0) return;
    const taken = { days, lastUsed, deprecated };
    days = new Map();
    lastUsed = new Map();
    deprecated = new Map();
    // In one order on every instance: two flushes at once then take their rows' locks in the same order, and
    // cannot deadlock.
    const byKey = <T extends { keyId: string }>(rows: T[], second: (row: T) => string) =>
      rows.sort((a, b) =>
        a.keyId === b.keyId ? (second(a) < second(b) ? -1 : 1) : a.keyId < b.keyId ? -1 : 1,
      );
    const batch: UsageBatch = {
      days: byKey(
        [...taken.days].flatMap(([keyId, byDay]) =>
          [...byDay].map(([day, counts]) => ({ keyId, day, ...counts })),
        ),
        (row) => row.day,
      ),
      lastUsed: byKey(
        [...taken.lastUsed].map(([keyId, at]) => ({ keyId, at: new Date(at).toISOString() })),
        () => '',
      ),
      deprecated: byKey([...taken.deprecated.values()], (row) => row.operationId),
    };
    try {
      await usage.add(batch);
    } catch (error) {
      // Nothing is lost: the counts go back, and the next flush tries again.
      merge(taken);
      warnUnlessOutage(logger, error, 'could not store key usage; keeping it for the next flush');
    }
  }

  const flush = (): Promise<void> => {
    // One flush at a time, each after the one before: counts are never written twice.
    flushing = flushing.then(write);
    return flushing;
  };

  /** The day of the last count, kept: formatting a date costs more than the rest of a count. */
  let today = { start: 0, end: 0, day: '' };
  const dayOfNow = (now: number) => {
    if (now < today.start || now >= today.end) {
      const start = now - (now % DAY_MS);
      today = { start, end: start + DAY_MS, day: dayOf(now) };
    }
    return today.day;
  };

  return {
    record(keyId, status, now) {
      const day = dayOfNow(now);
      let byDay = days.get(keyId);
      if (byDay === undefined) {
        byDay = new Map();
        days.set(keyId, byDay);
      }
      let counts = byDay.get(day);
      if (counts === undefined) {
        counts = empty();
        byDay.set(day, counts);
      }
      counts[outcomeOf(status)] += 1;
      if (now > (lastUsed.get(keyId) ?? 0)) lastUsed.set(keyId, now);
    },
    recordDeprecatedCall(keyId, operationId, now) {
      const slot = `${keyId}\n${operationId}`;
      const at = new Date(now).toISOString();
      const calls = deprecated.get(slot);
      if (calls === undefined) deprecated.set(slot, { keyId, operationId, calls: 1, lastCalledAt: at });
      else {
        calls.calls += 1;
        if (at > calls.lastCalledAt) calls.lastCalledAt = at;
      }
    },
    pending(keyId) {
      return {
        days: new Map([...(days.get(keyId) ?? [])].map(([day, counts]) => [day, { ...counts }])),
        lastUsed: lastUsed.get(keyId),
        deprecated: [...deprecated.values()]
          .filter((calls) => calls.keyId === keyId)
          .map((calls) => ({ ...calls })),
      };
    },
    flush,
    start() {
      timer = setInterval(() => {
        flush().catch(() => {});
      }, deps.flushMs ?? USAGE_FLUSH_MS);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}
