import type pg from 'pg';
import { releaseAfter } from './transaction.js';

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

interface PendingWrite {
  work: (client: pg.PoolClient) => Promise<unknown>;
  resolve: (value: never) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for PostgreSQL, as `WriteQueue` does it for SQLite: the writes queued during one turn of the
 * event loop run in one transaction on one connection, each in a SAVEPOINT of its own, and each caller is
 * answered only after that transaction's COMMIT returned (with `synchronous_commit` on, after its WAL
 * reached the disk). A write that fails is rolled back to its savepoint and rejected alone; the others
 * commit. A batch that fails as a whole (the connection dropped, the COMMIT failed) rejects every write in
 * it, and none of them is committed.
 *
 * The batch of the next turn does not wait for this one: batches run side by side on the pool's
 * connections, and PostgreSQL's own group commit shares flushes between their COMMITs.
 */
export class PostgresGroupCommit {
  readonly #pool: pg.Pool;
  #pending: PendingWrite[] = [];
  #scheduled = false;
  readonly #running = new Set<Promise<void>>();

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** Runs `work` in the next group transaction; resolves with its result once that transaction committed. */
  run<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ work, resolve: resolve as (value: never) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /** Waits until every queued and running batch has committed or failed, for closing. */
  async drain(): Promise<void> {
    this.#flush();
    await Promise.all([...this.#running]);
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    const running = this.#commit(batch).finally(() => this.#running.delete(running));
    this.#running.add(running);
  }

  async #commit(batch: PendingWrite[]): Promise<void> {
    let results: Settled[];
    try {
      results = await releaseAfter(this.#pool, async (client) => {
        await client.query('BEGIN');
        try {
          const settled: Settled[] = [];
          for (const write of batch) settled.push(await this.#inSavepoint(client, write));
          await client.query('COMMIT');
          return settled;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          throw error;
        }
      });
    } catch (error) {
      for (const write of batch) write.reject(error);
      return;
    }
    batch.forEach((write, index) => {
      const result = results[index] as Settled;
      if (result.ok) write.resolve(result.value as never);
      else write.reject(result.error);
    });
  }

  async #inSavepoint(client: pg.PoolClient, write: PendingWrite): Promise<Settled> {
    await client.query('SAVEPOINT write');
    try {
      const value = await write.work(client);
      await client.query('RELEASE SAVEPOINT write');
      return { ok: true, value };
    } catch (error) {
      // A statement that failed aborted the transaction up to the savepoint; the batch goes on from there. If
      // the rollback itself fails, the connection is gone, and the batch with it.
      await client.query('ROLLBACK TO SAVEPOINT write');
      return { ok: false, error };
    }
  }
}
