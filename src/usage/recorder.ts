import type { Clock } from '../clock/index.js';
import { type Logger, warnUnlessOutage } from '../log/index.js';
import type { DayCounts, DeprecatedUsage, UsageBatch, UsageRepository } from './types.js';

/** How often counts reach storage: never a write per request, at most a few seconds behind. */
export const USAGE_FLUSH_MS = 2_000;

/** How long hourly counts are kept; the daily ones are kept for good. */
export const HOURLY_KEPT_DAYS = 90;

/** How often each instance deletes the hourly counts past `HOURLY_KEPT_DAYS` (a delete of none is cheap). */
const PRUNE_MS = 3_600_000;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** The UTC day of a time, `YYYY-MM-DD`. */
export const dayOf = (at: number) => new Date(at - (at % DAY_MS)).toISOString().slice(0, 10);

/** The UTC hour of a time, `YYYY-MM-DDTHH`. */
export const hourOf = (at: number) => new Date(at - (at % HOUR_MS)).toISOString().slice(0, 13);

/** What this instance counted for a key (or for every key, summed) and has not stored yet. */
export interface PendingUsage {
  days: Map<string, DayCounts>;
  hours: Map<string, DayCounts>;
  lastUsed: number | undefined;
  deprecated: DeprecatedUsage[];
}

export interface UsageRecorder {
  /** Counts one answered request of a key by its status. In memory: the hot path writes nothing. */
  record(keyId: string, status: number, now: number): void;
  /** Counts one call of a key to a deprecated operation. */
  recordDeprecatedCall(keyId: string, operationId: string, now: number): void;
  /**
   * Runs `read`, a read of stored usage, with what this instance counted for a key (or for every key) and has
   * not stored: no flush writes meanwhile, so every count is in exactly one of the two, never in both or
   * neither. It waits for a flush under way to commit first (a few milliseconds).
   */
  withPending<T>(keyId: string | undefined, read: (pending: PendingUsage) => Promise<T>): Promise<T>;
  /** Writes everything counted so far; counts that fail to write are kept for the next flush. */
  flush(): Promise<void>;
  /** Flushes every few seconds, and prunes the old hourly counts every hour, until `stop`. */
  start(): void;
  /** Stops the timer and flushes what is left. */
  stop(): Promise<void>;
}

const empty = (): DayCounts => ({ success: 0, clientErrors: 0, rateLimited: 0, serverErrors: 0 });

/** Adds `counts` into `into`. */
function add(into: DayCounts, counts: DayCounts): void {
  into.success += counts.success;
  into.clientErrors += counts.clientErrors;
  into.rateLimited += counts.rateLimited;
  into.serverErrors += counts.serverErrors;
}

/** Hourly counts summed by day. */
function daysOf(byHour: ReadonlyMap<string, DayCounts>): Map<string, DayCounts> {
  const days = new Map<string, DayCounts>();
  for (const [hour, counts] of byHour) {
    const day = hour.slice(0, 10);
    const into = days.get(day);
    if (into === undefined) days.set(day, { ...counts });
    else add(into, counts);
  }
  return days;
}

/** Which count an answer's status adds to. */
function outcomeOf(status: number): keyof DayCounts {
  if (status === 429) return 'rateLimited';
  if (status >= 500) return 'serverErrors';
  if (status >= 400) return 'clientErrors';
  return 'success';
}

/**
 * Per-key usage, counted in memory by hour and flushed as additive deltas, by hour and by day (DESIGN.md
 * section 10): exact with any number of instances writing, since each adds only what it counted. A request
 * costs the same one count it cost when only days were counted: the days are summed from the hours at flush.
 */
export function createUsageRecorder(deps: {
  usage: UsageRepository;
  clock: Clock;
  logger: Logger;
  flushMs?: number;
}): UsageRecorder {
  const { usage, logger } = deps;
  /** By key id, then by hour. */
  let hours = new Map<string, Map<string, DayCounts>>();
  let lastUsed = new Map<string, number>();
  /** By key id and operation id. */
  let deprecated = new Map<string, DeprecatedUsage>();
  let timer: NodeJS.Timeout | undefined;
  let pruner: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  /** The prune in progress, which `stop` waits for: storage closes after it. */
  let pruning: Promise<unknown> = Promise.resolve();

  const prune = () => {
    pruning = usage
      .pruneHours(hourOf(deps.clock.now() - HOURLY_KEPT_DAYS * DAY_MS))
      .catch((error: unknown) => warnUnlessOutage(logger, error, 'could not prune the hourly key usage'));
  };

  function merge(batch: {
    hours: typeof hours;
    lastUsed: typeof lastUsed;
    deprecated: typeof deprecated;
  }): void {
    for (const [keyId, byHour] of batch.hours) {
      let keyHours = hours.get(keyId);
      if (keyHours === undefined) {
        keyHours = new Map();
        hours.set(keyId, keyHours);
      }
      for (const [hour, counts] of byHour) {
        const into = keyHours.get(hour);
        if (into === undefined) keyHours.set(hour, counts);
        else add(into, counts);
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
    if (hours.size === 0 && deprecated.size === 0) return;
    const taken = { hours, lastUsed, deprecated };
    hours = new Map();
    lastUsed = new Map();
    deprecated = new Map();
    // In one order on every instance: two flushes at once then take their rows' locks in the same order, and
    // cannot deadlock.
    const byKey = <T extends { keyId: string }>(rows: T[], second: (row: T) => string) =>
      rows.sort((a, b) =>
        a.keyId === b.keyId ? (second(a) < second(b) ? -1 : 1) : a.keyId < b.keyId ? -1 : 1,
      );
    const hourRows = [...taken.hours].flatMap(([keyId, byHour]) =>
      [...byHour].map(([hour, counts]) => ({ keyId, hour, ...counts })),
    );
    const batch: UsageBatch = {
      days: byKey(
        [...taken.hours].flatMap(([keyId, byHour]) =>
          [...daysOf(byHour)].map(([day, counts]) => ({ keyId, day, ...counts })),
        ),
        (row) => row.day,
      ),
      hours: byKey(hourRows, (row) => row.hour),
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

  /**
   * Reads of stored usage that `withPending` is running, and the write that waits for them to end. A write
   * takes the counts out of memory before its commit: while it runs, no reader may look, or it would see those
   * counts in neither place (before the commit) or in both (after it, before the write returns). Readers that
   * arrive while a write waits queue behind it, so a steady stream of readers cannot hold flushes back.
   */
  let readers = 0;
  let writing: Promise<void> | undefined;
  const idle: (() => void)[] = [];

  async function writeAlone(): Promise<void> {
    while (readers > 0) await new Promise<void>((resolve) => idle.push(resolve));
    await write();
  }

  const flush = (): Promise<void> => {
    // One flush at a time, each after the one before: counts are never written twice.
    flushing = flushing.then(() => {
      const done = writeAlone().finally(() => {
        if (writing === done) writing = undefined;
      });
      writing = done;
      return done;
    });
    return flushing;
  };

  /** What is counted and not stored, of a key or of every key. */
  function pendingOf(keyId: string | undefined): PendingUsage {
    const mine = new Map<string, DayCounts>();
    for (const [id, byHour] of hours) {
      if (keyId !== undefined && id !== keyId) continue;
      for (const [hour, counts] of byHour) {
        const into = mine.get(hour);
        if (into === undefined) mine.set(hour, { ...counts });
        else add(into, counts);
      }
    }
    return {
      days: daysOf(mine),
      hours: mine,
      lastUsed: keyId === undefined ? undefined : lastUsed.get(keyId),
      deprecated: [...deprecated.values()]
        .filter((calls) => calls.keyId === keyId)
        .map((calls) => ({ ...calls })),
    };
  }

  /** The hour of the last count, kept: formatting a date costs more than the rest of a count. */
  let thisHour = { start: 0, end: 0, hour: '' };
  const hourOfNow = (now: number) => {
    if (now < thisHour.start || now >= thisHour.end) {
      const start = now - (now % HOUR_MS);
      thisHour = { start, end: start + HOUR_MS, hour: hourOf(now) };
    }
    return thisHour.hour;
  };

  return {
    record(keyId, status, now) {
      const hour = hourOfNow(now);
      let byHour = hours.get(keyId);
      if (byHour === undefined) {
        byHour = new Map();
        hours.set(keyId, byHour);
      }
      let counts = byHour.get(hour);
      if (counts === undefined) {
        counts = empty();
        byHour.set(hour, counts);
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
    async withPending(keyId, read) {
      // Counts a flush has taken but not committed are in neither place: wait for that flush to end.
      while (writing !== undefined) await writing.catch(() => {});
      readers += 1;
      try {
        return await read(pendingOf(keyId));
      } finally {
        readers -= 1;
        if (readers === 0) for (const resolve of idle.splice(0)) resolve();
      }
    },
    flush,
    start() {
      timer = setInterval(() => {
        flush().catch(() => {});
      }, deps.flushMs ?? USAGE_FLUSH_MS);
      timer.unref();
      prune();
      pruner = setInterval(prune, PRUNE_MS);
      pruner.unref();
    },
    async stop() {
      clearInterval(timer);
      clearInterval(pruner);
      await pruning;
      await flush();
    },
  };
}
