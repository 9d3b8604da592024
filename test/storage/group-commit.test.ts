import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createStorage, IdempotencyConflict, type Storage } from '../../src/storage/index.js';
import { PostgresGroupCommit } from '../../src/storage/postgres/group-commit.js';
import { createTestDatabase } from '../support/backends.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let storage: Storage;
let reader: pg.Client;

/**
 * Transactions committed in the test database so far (every session's, ours only here). A backend reports
 * its counts at most once a second, and when it has been idle for a second: wait that long first.
 */
async function commits(): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await reader.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await reader.query<{ n: string }>(
    'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(rows[0]?.n ?? 0);
}

before(async () => {
  database = await createTestDatabase();
  storage = await createStorage({ kind: 'postgres', url: database.url, poolSize: 4 });
  reader = new pg.Client({ connectionString: database.url });
  await reader.connect();
});
after(async () => {
  await reader?.end();
  await storage?.close();
  await database?.drop();
});

test('PostgreSQL: the creates of one turn share one transaction; a failing create is rolled back alone', async () => {
  const keep = (key: string) => ({
    apiKeyId: 'key_group',
    key,
    requestDigest: 'digest',
    createdAt: Date.now(),
    expiredBefore: Date.now() - 86_400_000,
    status: 201,
    body: (created: unknown) => JSON.stringify(created),
  });
  // An answer already kept under "taken": a second create under it must fail, and roll back its row.
  await storage.create('createCategory', { name: 'first under taken' }, keep('taken'));
  await storage.pets.list({});
  const before = await commits();
  const results = await Promise.allSettled(
    Array.from({ length: 50 }, (_value, index) =>
      index === 25
        ? storage.create('createCategory', { name: 'doomed' }, keep('taken'))
        : storage.create('createCategory', { name: `batch ${index}` }, keep(`k${index}`)),
    ),
  );
  const committed = (await commits()) - before;
  const rejected = results.filter((result) => result.status === 'rejected');
  assert.equal(rejected.length, 1);
  assert.ok((rejected[0] as PromiseRejectedResult).reason instanceof IdempotencyConflict);
  const names = (await storage.categories.list()).map((category) => category.name);
  assert.equal(names.length, 50, '49 of the batch and the first');
  assert.ok(!names.includes('doomed'), 'the failed create left no row');
  // Reading the statistics commits too; one turn of 50 creates is one transaction, not 50.
  assert.ok(committed <= 4, `${committed} transactions for 50 creates`);
});

test('PostgreSQL: a create is answered only after its transaction committed', async () => {
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  const writes = new PostgresGroupCommit(pool);
  const seenBefore: number[] = [];
  const done = writes.run(async (client) => {
    await client.query("INSERT INTO categories (name) VALUES ('after commit')");
    const { rows } = await reader.query<{ n: string }>(
      "SELECT count(*) AS n FROM categories WHERE name = 'after commit'",
    );
    seenBefore.push(Number(rows[0]?.n));
    return 'ok';
  });
  assert.equal(await done, 'ok');
  const { rows } = await reader.query<{ n: string }>(
    "SELECT count(*) AS n FROM categories WHERE name = 'after commit'",
  );
  assert.deepEqual(seenBefore, [0], 'not visible to another session inside the batch');
  assert.equal(Number(rows[0]?.n), 1, 'visible once the promise resolved');
  await writes.drain();
  await pool.end();
});
