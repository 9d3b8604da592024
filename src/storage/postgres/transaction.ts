import type pg from 'pg';
import { isUnavailable } from './unavailable.js';

/** Where a statement runs: the pool (its own transaction) or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'>;

/**
 * Runs `work` on one client of the pool. A client whose connection failed goes back to the pool destroyed,
 * not reused: after a dropped connection or a timed-out query its state is unknown (a timed-out query may
 * still be running on it), and the pool opens a fresh one when it is next needed.
 */
export async function releaseAfter<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  // A checked-out client whose connection drops emits 'error' (besides failing its query); unheard, that
  // event would end the process. The failed query carries the error to `work`'s caller.
  const ignore = () => {};
  client.on('error', ignore);
  try {
    const result = await work(client);
    client.off('error', ignore);
    client.release();
    return result;
  } catch (error) {
    client.off('error', ignore);
    client.release(isUnavailable(error) ? (error as Error) : undefined);
    throw error;
  }
}

/** Runs `work` in one transaction on one client: committed if it resolves, rolled back if it throws. */
export function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return releaseAfter(pool, async (client) => {
    await client.query('BEGIN');
    try {
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  });
}
