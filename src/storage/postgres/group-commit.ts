import type pg from 'pg';
import { type Settled, settle, type WaitingWrite } from '../group-commit.js';
import { releaseAfter } from './transaction.js';

/** The NOTIFY statements of a batch's successful writes, each channel once, to run before its COMMIT. */
function notifications(batch: PendingWrite[], settled: Settled[]): string {
  const channels = new Set(
    batch.flatMap((write, index) => (settled[index]?.ok && write.notify ? [write.notify] : [])),
  );
  return [...channels].map((channel) => `NOTIFY ${channel}; `).join('');
}

/**
 * Calls `send` with the connection corked, so that the statements it queues leave in one write: on loopback
 * each write costs tens of microseconds (it wakes PostgreSQL), more than a statement's bytes. A write's
 * first statement is queued as `work` is called; the ones after it wait for answers anyway.
 */
function inOneWrite<T>(client: pg.PoolClient, send: () => T): T {
  const { stream } = client.connection;
  stream.cork();
  try {
    return send();
  } finally {
    stream.uncork();
  }
}

interface PendingWrite extends WaitingWrite {
  work: (client: pg.PoolClient) => Promise<unknown>;
  /** A LISTEN channel to notify in the batch's transaction when this write succeeds. */
  notify: string | undefined;
}

/**
 * Group commit for PostgreSQL, as `WriteQueue` does it for SQLite: the writes queued during one turn of the
 * event loop run in one transaction on one connection, and each caller is answered only after that
 * transaction's COMMIT returned (with `synchronous_commit` on, after its WAL reached the disk). A write that
 * fails is rejected alone and the others commit: the batch is then run again with each write in a
 * SAVEPOINT of its own. The first attempt goes without savepoints and sends the whole batch at once on a
 * pipelined connection: within a batch the round trips are the cost (12 writes a batch took 3.5 ms at
 * 140 us each, when each statement waited for the answer to the one before). A batch that fails as a whole
 * (the connection dropped, the COMMIT failed) rejects every write in it, and none of them is committed.
 *
 * One batch commits at a time: what arrives meanwhile waits and goes in the next batch as soon as this one
 * committed. Were each turn's few arrivals committed at once, side by side, a busy instance would pay one
 * COMMIT (and nearly one disk flush) per create, as it did: 1.17 transactions per create, 4.7k creates/s on
 * two instances (`npm run bench`).
 */
export class PostgresGroupCommit {
  readonly #pool: pg.Pool;
  #pending: PendingWrite[] = [];
  #scheduled = false;
  /** The batch committing now, if one is. */
  #running: Promise<void> | undefined;

  /** `pool` must be made with `pipeline: true`: a batch's statements go out without waiting for answers. */
  constructor(pool: pg.Pool) {
    if ((pool as pg.Pool & { options?: pg.PoolConfig }).options?.pipeline !== true) {
      throw new Error('PostgresGroupCommit needs a pool made with pipeline: true');
    }
    this.#pool = pool;
  }

  /**
   * Runs `work` in the next group transaction; resolves with its result once that transaction committed.
   * With `notify`, a successful write has the transaction send a notification on that channel: once per
   * batch, delivered by PostgreSQL when (and only if) the batch commits.
   */
  run<T>(work: (client: pg.PoolClient) => Promise<T>, notify?: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ work, notify, resolve: resolve as (value: never) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /** Waits until every queued and running batch has committed or failed, for closing. */
  async drain(): Promise<void> {
    this.#flush();
    while (this.#running !== undefined) await this.#running;
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#pending;
    if (batch.length === 0 || this.#running !== undefined) return;
    this.#pending = [];
    this.#running = this.#commit(batch).finally(() => {
      this.#running = undefined;
      this.#flush();
    });
  }

  async #commit(batch: PendingWrite[]): Promise<void> {
    let results: Settled[];
    try {
      results = await releaseAfter(this.#pool, async (client) => {
        try {
          return (await this.#optimistic(client, batch)) ?? (await this.#isolated(client, batch));
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          throw error;
        }
      });
    } catch (error) {
      for (const write of batch) write.reject(error);
      return;
    }
    settle(batch, results);
  }

  /**
   * The batch as it nearly always goes: BEGIN and every write's statements sent at once on the pipelined
   * connection, no write waiting for the answers to the ones before, then COMMIT. PostgreSQL still runs them
   * one after the other, in the order sent, so each write sees the ones before it in the batch; the batch
   * costs a round trip per statement of its longest write (an insert is one), not one per statement of
   * every write. A write that fails (a conflict, a constraint) aborts the transaction, which fails every
   * statement after it; the attempt is rolled back and the batch left to `#isolated`: undefined. Writes are
   * statements with their inputs, so running them again is safe.
   */
  async #optimistic(client: pg.PoolClient, batch: PendingWrite[]): Promise<Settled[] | undefined> {
    const [begun, ...outcomes] = await Promise.allSettled(
      inOneWrite(client, () => [client.query('BEGIN'), ...batch.map((write) => write.work(client))] as const),
    );
    if (begun.status === 'rejected') throw begun.reason;
    if (outcomes.some((outcome) => outcome.status === 'rejected')) {
      await client.query('ROLLBACK; BEGIN');
      return undefined;
    }
    const settled: Settled[] = outcomes.map((outcome) => ({
      ok: true,
      value: (outcome as PromiseFulfilledResult<unknown>).value,
    }));
    await client.query(`${notifications(batch, settled)}COMMIT`);
    return settled;
  }

  /** The batch again, each write in a savepoint of its own, so that the one that fails is rolled back alone. */
  async #isolated(client: pg.PoolClient, batch: PendingWrite[]): Promise<Settled[]> {
    const settled: Settled[] = [];
    // Statements without parameters go together in one round trip (the simple query protocol).
    await client.query('SAVEPOINT write');
    for (const write of batch) {
      try {
        settled.push({ ok: true, value: await write.work(client) });
        await client.query('RELEASE SAVEPOINT write; SAVEPOINT write');
      } catch (error) {
        // A statement that failed aborted the transaction back to the savepoint, which stays for the next
        // write. If the rollback itself fails, the connection is gone, and the batch with it.
        await client.query('ROLLBACK TO SAVEPOINT write');
        settled.push({ ok: false, error });
      }
    }
    await client.query(`RELEASE SAVEPOINT write; ${notifications(batch, settled)}COMMIT`);
    return settled;
  }
}
