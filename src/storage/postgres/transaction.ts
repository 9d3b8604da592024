import type pg from 'pg';

/** Where a statement runs: the pool (its own transaction) or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'>;

/** Runs `work` in one transaction on one client: committed if it resolves, rolled back if it throws. */
export async function transaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
