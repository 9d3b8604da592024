import { type Settled, settle, type WaitingWrite } from '../group-commit.js';
import type { Database, Statement } from './driver.js';

interface PendingWrite extends WaitingWrite {
  work: () => unknown;
  durable: boolean;
}

/**
 * Group commit for SQLite (BENCHMARKS.md, "durable creates"): every write queued during one turn of the
 * event loop runs in one transaction, and each caller is answered only after that transaction's COMMIT,
 * which with `synchronous=FULL` has reached the disk. One fsync is shared by the whole batch instead of
 * paid per request, so durability is never traded for throughput.
 *
 * Each write runs inside its own SAVEPOINT, so a write that throws is rolled back and rejected alone while
 * the rest of its batch commits.
 *
 * A write that a crash may lose (`durable: false`: a webhook delivery's lease, or an attempt's record, which
 * the lease's end makes good) does not pay an fsync: a batch of only such writes commits with
 * `synchronous=NORMAL`, whose WAL frames the next durable commit syncs with its own.
 */
export class WriteQueue {
  readonly #db: Database;
  readonly #begin: Statement;
  readonly #commit: Statement;
  readonly #savepoint: Statement;
  readonly #release: Statement;
  readonly #rollbackTo: Statement;
  #pending: PendingWrite[] = [];
  #scheduled = false;

  constructor(db: Database) {
    this.#db = db;
    // IMMEDIATE takes the write lock up front, so another process (the CLI) makes us wait, not fail midway.
    this.#begin = db.prepare('BEGIN IMMEDIATE');
    this.#commit = db.prepare('COMMIT');
    this.#savepoint = db.prepare('SAVEPOINT write');
    this.#release = db.prepare('RELEASE write');
    this.#rollbackTo = db.prepare('ROLLBACK TO write');
  }

  /**
   * Runs `work` in the next group transaction; resolves with its result once that transaction committed (and,
   * unless `durable` is false, reached the disk).
   */
  run<T>(work: () => T, options: { durable: boolean } = { durable: true }): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({
        work,
        durable: options.durable,
        resolve: resolve as (value: never) => void,
        reject,
      });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits every queued write now. Safe to call at any time, for example before closing. */
  flush(): void {
    this.#scheduled = false;
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];

    let results: Settled[];
    try {
      results = this.#runBatch(batch);
    } catch (error) {
      if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
      for (const write of batch) write.reject(error);
      return;
    }
    settle(batch, results);
  }

  #runBatch(batch: PendingWrite[]): Settled[] {
    // Set each time, not prepared: SQLite runs a PRAGMA that sets a value when it prepares it, and refuses to
    // change the safety level inside a transaction.
    const lazy = batch.every((write) => !write.durable);
    if (lazy) this.#db.pragma('synchronous = NORMAL');
    try {
      return this.#runTransaction(batch);
    } catch (error) {
      // Rolled back here, so that FULL can be set again below.
      if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
      throw error;
    } finally {
      if (lazy) this.#db.pragma('synchronous = FULL');
    }
  }

  #runTransaction(batch: PendingWrite[]): Settled[] {
    this.#begin.run();
    const results = batch.map((write): Settled => {
      this.#savepoint.run();
      try {
        const value = write.work();
        this.#release.run();
        return { ok: true, value };
      } catch (error) {
        this.#rollbackTo.run();
        this.#release.run();
        return { ok: false, error };
      }
    });
    this.#commit.run();
    return results;
  }
}
