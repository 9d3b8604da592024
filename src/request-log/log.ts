import type { Clock } from '../clock/index.js';
import type { Logger } from '../log/index.js';
import { RowBatchBuilder } from './rows.js';
import type { RequestLogStore, RequestPage, RequestRecord } from './types.js';

/** How often the rows answered since reach the store: a reader on another instance sees them within 2 s. */
const FLUSH_MS = 250;

/**
 * The most rows waiting for the store. Past it a row is dropped and counted
 * (`petstore_request_log_rows_total{outcome="dropped"}`), never a request held: at 25,000 requests a
 * second that is four seconds of a writer that fell behind, about 40 MB at most.
 */
const MAX_PENDING = 100_000;

/** How many rows one write takes at most, so that one batch never holds the store long. */
const BATCH = 5_000;

/** How often each instance deletes what is past keeping. */
const PRUNE_MS = 60_000;

const DAY_MS = 86_400_000;

/**
 * The rows a second kept of one client address without a credential (no key, no admin token or session):
 * a person who gets a 401 or reads the docs finds each of their requests, and a flood from one address (every
 * 401 and 429 is a row) writes ten rows a second, not 24,000. Past it, requests are counted, not kept
 * (`petstore_request_log_rows_total{outcome="sampled"}`). Rows of keys and admin principals are all kept.
 */
export const ANONYMOUS_ROWS_PER_SECOND = 10;

/** How often at most the log says, in a warning line, that strangers' rows were not kept or were evicted. */
const WARN_EVERY_MS = 60_000;

export interface RequestLogOptions {
  store: RequestLogStore;
  clock: Clock;
  logger: Logger;
  /** Whole UTC days kept before today (`REQUEST_LOG_DAYS`). */
  days: number;
  /** The most bytes of the SQLite file (`REQUEST_LOG_MAX_MB`); PostgreSQL keeps by days alone. */
  maxBytes: number;
  /**
   * Told of rows by what became of them: written; dropped (the writer fell behind or failed); sampled (a
   * stranger's past {@link ANONYMOUS_ROWS_PER_SECOND}); evicted (deleted by the size bound before their days).
   */
  counted?: (outcome: 'written' | 'dropped' | 'sampled' | 'evicted', rows: number) => void;
}

export interface RequestLog {
  /** Keeps one answered request: in memory, written with the next batch. The hot path writes nothing. */
  record(record: RequestRecord): void;
  /**
   * The rows of a filter, newest first. Everything this instance answered before the call is in them (what
   * waits is written first); another instance's rows within 2 s.
   */
  list(page: RequestPage): Promise<RequestRecord[]>;
  /** The rows answered and not yet written (those of a write under way included). */
  backlog(): number;
  /** Writes what waits. */
  flush(): Promise<void>;
  /** Deletes what is past keeping now (the timer does it every minute). */
  prune(): Promise<void>;
  /** Writes every {@link FLUSH_MS} and prunes every minute (and now), until `stop`. */
  start(): void;
  /** Writes what is left, then closes the store. */
  stop(): Promise<void>;
}

/** The start of the oldest UTC day that is kept, `days` whole days before today's. */
function keptFrom(now: number, days: number): number {
  return now - (now % DAY_MS) - days * DAY_MS;
}

/**
 * Admits at most {@link ANONYMOUS_ROWS_PER_SECOND} rows of each client address in each second of the clock.
 * Its memory is the addresses of one second, forgotten at the next.
 */
function anonymousBound() {
  let second = Number.NaN;
  const kept = new Map<string, number>();
  return (client: string | null, at: number): boolean => {
    const now = Math.floor(at / 1000);
    if (now !== second) {
      second = now;
      kept.clear();
    }
    const address = client ?? '';
    const rows = kept.get(address) ?? 0;
    if (rows >= ANONYMOUS_ROWS_PER_SECOND) return false;
    kept.set(address, rows + 1);
    return true;
  };
}

export function createRequestLog(options: RequestLogOptions): RequestLog {
  const { store, clock, logger, days, maxBytes, counted } = options;
  /** The rows waiting, in batches of at most {@link BATCH}, encoded as they came (rows.ts); the last one fills. */
  const full: RowBatchBuilder[] = [];
  let filling = new RowBatchBuilder(BATCH);
  /** The rows waiting: those of `full` and of `filling`. */
  let pending = 0;
  /** The rows of the write under way. */
  let inFlight = 0;
  let writing: Promise<void> | undefined;
  let flushTimer: NodeJS.Timeout | undefined;
  let pruneTimer: NodeJS.Timeout | undefined;
  let droppedSinceWarning = 0;
  const admitAnonymous = anonymousBound();
  let sampledSinceWarning = 0;
  let sampledWarnedAt = Number.NEGATIVE_INFINITY;

  /** Whether the last write failed: a store that is down is said once, and once again when it is back. */
  let failing = false;

  async function writeAll(): Promise<void> {
    for (;;) {
      const next = full.shift() ?? (filling.rows > 0 ? filling : undefined);
      if (next === undefined) return;
      if (next === filling) filling = new RowBatchBuilder(BATCH);
      const batch = next.build();
      pending -= batch.rows;
      inFlight = batch.rows;
      try {
        await store.add(batch);
        counted?.('written', batch.rows);
        if (failing) {
          failing = false;
          logger.info('the request log is written again');
        }
      } catch (error) {
        // Not kept for another try: a store that is down would grow the backlog without end, and a log row
        // is worth less than the memory of the instance that serves the API. No stack: the cause is the
        // store's (PostgreSQL down, a full disk), said in its own words.
        counted?.('dropped', batch.rows);
        if (!failing) {
          failing = true;
          logger.warn(
            { rows: batch.rows, reason: (error as Error).message },
            'could not write request log rows: they are dropped until the store takes them again',
          );
        }
      } finally {
        inFlight = 0;
      }
    }
  }

  /** One write at a time; a flush during one waits for it, then writes what came meanwhile. */
  function flush(): Promise<void> {
    if (writing === undefined) {
      writing = writeAll().finally(() => {
        writing = undefined;
      });
      return writing;
    }
    return writing.then(flush);
  }

  /**
   * Deletes what is past keeping. Rows the size bound takes are younger than `days`: counted, and said in a
   * warning, since the log then keeps less than the operator asked for.
   */
  const prune = async () => {
    const evicted = await store.prune(keptFrom(clock.now(), days), maxBytes);
    const rows = evicted.anonymous + evicted.identified;
    if (rows === 0) return;
    counted?.('evicted', rows);
    logger.warn(
      {
        evicted: rows,
        anonymous: evicted.anonymous,
        identified: evicted.identified,
        oldestKept: evicted.oldestKept === null ? null : new Date(evicted.oldestKept).toISOString(),
        maxMb: Math.round(maxBytes / 1_048_576),
        days,
      },
      'the request log reached REQUEST_LOG_MAX_MB and deleted rows younger than REQUEST_LOG_DAYS (strangers’ rows first): raise REQUEST_LOG_MAX_MB, or lower REQUEST_LOG_DAYS to what the size holds',
    );
  };
  const pruneInBackground = () => {
    prune().catch((error: unknown) =>
      logger.warn(
        { reason: (error as Error).message },
        'could not prune the request log; it tries again in a minute',
      ),
    );
  };

  /** Counts a stranger's row that was not kept; says so at most once a minute. */
  function sampled(record: RequestRecord): void {
    counted?.('sampled', 1);
    sampledSinceWarning += 1;
    if (record.at - sampledWarnedAt < WARN_EVERY_MS) return;
    logger.warn(
      { client: record.client, sampled: sampledSinceWarning, perSecond: ANONYMOUS_ROWS_PER_SECOND },
      'requests without a credential past the rows a second the request log keeps of one address are counted, not kept (petstore_request_log_rows_total{outcome="sampled"})',
    );
    sampledWarnedAt = record.at;
    sampledSinceWarning = 0;
  }

  return {
    record(record) {
      if (record.keyId === null && record.actor === null && !admitAnonymous(record.client, record.at)) {
        sampled(record);
        return;
      }
      if (pending >= MAX_PENDING) {
        counted?.('dropped', 1);
        droppedSinceWarning += 1;
        if (droppedSinceWarning === 1) {
          logger.warn(
            { pending },
            'the request log is behind: rows are dropped until it catches up (petstore_request_log_rows_total{outcome="dropped"})',
          );
        }
        return;
      }
      droppedSinceWarning = 0;
      filling.add(record);
      pending += 1;
      if (filling.full) {
        full.push(filling);
        filling = new RowBatchBuilder(BATCH);
      }
    },
    async list(page) {
      await flush();
      return store.list(page);
    },
    backlog: () => pending + inFlight,
    flush,
    prune,
    start() {
      flushTimer = setInterval(() => void flush(), FLUSH_MS);
      flushTimer.unref();
      pruneInBackground();
      pruneTimer = setInterval(pruneInBackground, PRUNE_MS);
      pruneTimer.unref();
    },
    async stop() {
      clearInterval(flushTimer);
      clearInterval(pruneTimer);
      await flush();
      await store.close();
    },
  };
}
