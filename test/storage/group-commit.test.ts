import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createStorage, IdempotencyConflict, type Storage } from '../../src/storage/index.js';
import { PostgresGroupCommit } from '../../src/storage/postgres/group-commit.js';
import { createTestDatabase } from '../support/backends.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let storage: Storage;
let reader: pg.Client;

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

test('PostgreSQL: the writes of one turn share one transaction', async () => {
  const pool = new pg.Pool({ connectionString: database.url, max: 4, pipeline: true });
  const writes = new PostgresGroupCommit(pool);
  const ids = await Promise.all(
    Array.from({ length: 50 }, (_value, index) =>
      writes.run(async (client) => {
        const { rows } = await client.query<{ id: string }>(
          'INSERT INTO categories (name) VALUES ($1) RETURNING id',
          [`turn ${index}`],
        );
        return Number(rows[0]?.id);
      }),
    ),
  );
  await writes.drain();
  await pool.end();
  assert.equal(new Set(ids).size, 50);
  // The transactions that wrote the 50 rows, read from the rows themselves (xmin): the cluster's transaction
  // counter, which this test read before, also moves with whatever else uses the same PostgreSQL meanwhile
  // (another test run, as when CI runs the suite twice), and so counted 4 transactions in a loaded run.
  const { rows } = await reader.query<{ n: string }>(
    "SELECT count(DISTINCT xmin::text) AS n FROM categories WHERE name LIKE 'turn %'",
  );
  const transactions = Number(rows[0]?.n);
  assert.equal(transactions, 1, `${transactions} transactions for 50 writes`);
});

test('PostgreSQL: a create that fails is rolled back alone; the others of its turn commit', async () => {
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
  const results = await Promise.allSettled(
    Array.from({ length: 50 }, (_value, index) =>
      index === 25
        ? storage.create('createCategory', { name: 'doomed' }, keep('taken'))
        : storage.create('createCategory', { name: `batch ${index}` }, keep(`k${index}`)),
    ),
  );
  const rejected = results.filter((result) => result.status === 'rejected');
  assert.equal(rejected.length, 1);
  assert.ok((rejected[0] as PromiseRejectedResult).reason instanceof IdempotencyConflict);
  const names = (await storage.categories.list()).map((category) => category.name);
  assert.ok(!names.includes('doomed'), 'the failed create left no row');
  for (let index = 0; index < 50; index += 1) {
    if (index !== 25) assert.ok(names.includes(`batch ${index}`), `batch ${index} committed`);
  }
});

test('PostgreSQL: a create is answered only after its transaction committed', async () => {
  const pool = new pg.Pool({ connectionString: database.url, max: 2, pipeline: true });
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

test('PostgreSQL: a batch goes out in two round trips, not one per write', async () => {
  const target = new URL(database.url);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const throughProxy = new URL(database.url);
  throughProxy.port = String(proxy.port);
  const pool = new pg.Pool({ connectionString: throughProxy.toString(), max: 1, pipeline: true });
  try {
    await pool.query('SELECT 1');
    proxy.delay(100);
    const writes = new PostgresGroupCommit(pool);
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 40 }, (_value, index) =>
        writes.run((client) =>
          client.query('INSERT INTO categories (name) VALUES ($1)', [`pipelined ${index}`]),
        ),
      ),
    );
    const took = performance.now() - started;
    // Each round trip takes 200 ms through the proxy. BEGIN and the 40 inserts go in one, COMMIT in the
    // next: 400 ms. A round trip per statement would be 42 of them, 8.4 s. The bounds tell the two apart
    // without betting on the machine: a timer may fire up to a millisecond before its time as
    // performance.now() sees it (Node counts from the event loop's cached clock), so 4 hops may come a few
    // ms short of 400; and 4 s, under half of 8.4 s, leaves a loaded machine ten times the 400 ms.
    assert.ok(took >= 390, `the batch crossed the slow link (${Math.round(took)} ms)`);
    assert.ok(took < 4_000, `40 writes took ${Math.round(took)} ms, as if sent one at a time`);
    const { rows } = await reader.query<{ n: string }>(
      "SELECT count(*) AS n FROM categories WHERE name LIKE 'pipelined %'",
    );
    assert.equal(Number(rows[0]?.n), 40);
    await writes.drain();
  } finally {
    await pool.end();
    await proxy.close();
  }
});
