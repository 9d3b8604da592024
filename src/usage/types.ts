/** The answers of one key on one UTC day, by outcome. */
export interface DayCounts {
  /** 2xx and 3xx (a 304 among them). */
  success: number;
  /** 4xx other than 429. */
  clientErrors: number;
  rateLimited: number;
  serverErrors: number;
}

/** Counts of one key and day, to add to what is stored. */
export interface DayUsage extends DayCounts {
  keyId: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
}

/** Counts of one key and hour, to add to what is stored. */
export interface HourUsage extends DayCounts {
  keyId: string;
  /** `YYYY-MM-DDTHH`, UTC: the hour that starts then. */
  hour: string;
}

/** One bucket of a usage series: where it starts (ISO 8601), and its counts. */
export interface UsageBucket extends DayCounts {
  start: string;
}

/** One key's use on one day, for the top keys of that day. */
export interface KeyDayUse extends DayCounts {
  keyId: string;
}

/** Calls of one key to one deprecated operation, to add to what is stored. */
export interface DeprecatedUsage {
  keyId: string;
  operationId: string;
  calls: number;
  lastCalledAt: string;
}

/** What one flush adds: deltas, so that instances flushing at once add up instead of overwriting. */
export interface UsageBatch {
  days: readonly DayUsage[];
  /** The same counts by hour: the days are their sums. */
  hours: readonly HourUsage[];
  /** The latest request of each key in the batch; a later one already stored is kept. */
  lastUsed: readonly { keyId: string; at: string }[];
  deprecated: readonly DeprecatedUsage[];
}

/** Where usage is kept: the storage implements it. */
export interface UsageRepository {
  /** Adds a batch, in one transaction. */
  add(batch: UsageBatch): Promise<void>;
  /** A key's stored calls of deprecated operations. */
  deprecated(keyId: string): Promise<Omit<DeprecatedUsage, 'keyId'>[]>;
  /**
   * Counts by hour from `fromHour` to `toHour` (both `YYYY-MM-DDTHH`, inclusive), of one key or, without one,
   * of every key summed; only the hours that have any, in order.
   */
  hourly(
    keyId: string | undefined,
    fromHour: string,
    toHour: string,
  ): Promise<(DayCounts & { hour: string })[]>;
  /**
   * Counts by day from `fromDay` to `toDay` (`YYYY-MM-DD`, inclusive), of one key or of every key summed:
   * the daily counts, which are kept for good; only the days that have any, in order.
   */
  daily(keyId: string | undefined, fromDay: string, toDay: string): Promise<(DayCounts & { day: string })[]>;
  /** Every key's counts on one day, the most used first (by answers that counted), at most `limit`. */
  keysOn(day: string, limit: number): Promise<KeyDayUse[]>;
  /** Deletes the hourly counts before `beforeHour`: they are kept 90 days, the daily ones for good. */
  pruneHours(beforeHour: string): Promise<number>;
}
