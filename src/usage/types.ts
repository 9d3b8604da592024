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
  /** The latest request of each key in the batch; a later one already stored is kept. */
  lastUsed: readonly { keyId: string; at: string }[];
  deprecated: readonly DeprecatedUsage[];
}

/** Where usage is kept: the storage implements it. */
export interface UsageRepository {
  /** Adds a batch, in one transaction. */
  add(batch: UsageBatch): Promise<void>;
  /** A key's stored counts from `fromDay` on (`YYYY-MM-DD`), by day. */
  days(keyId: string, fromDay: string): Promise<(DayCounts & { day: string })[]>;
  /** A key's stored calls of deprecated operations. */
  deprecated(keyId: string): Promise<Omit<DeprecatedUsage, 'keyId'>[]>;
}
