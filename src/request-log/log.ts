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

export interface RequestLogOptions {
  store: RequestLogStore;
  clock: Clock;
  logger: Logger;
  /** Whole UTC days kept before today (`REQUEST_LOG_DAYS`). */
  days: number;
  /** The most bytes of the SQLite file (`REQUEST_LOG_MAX_MB`); PostgreSQL keeps by days alone. */
  maxBytes: number;
  /** Told of each row written or dropped. */
  counted?: (outcome: 'written' | 'dropped', rows: number) => void;
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

  const prune = () => store.prune(keptFrom(clock.now(), days), maxBytes);
  const pruneInBackground = () => {
    prune().catch((error: unknown) =>
      logger.warn(
        { reason: (error as Error).message },
        'could not prune the request log; it tries again in a minute',
      ),
    );
  };

  return {
    record(record) {
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
