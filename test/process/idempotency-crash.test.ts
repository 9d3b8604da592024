import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClient, type FetchLike } from '@petstore-api/client';
import { Sqlite } from '../../src/storage/index.js';
import { BACKENDS, queryPostgres } from '../support/backends.js';
import { killIfRunning, type ServerProcess, spawnServer, storeToCrash } from '../support/process.js';

const CYCLES = 20;

/** The ids of the rows named `name`, read straight from the store the killed servers left. */
async function idsNamed(store: { file: string } | { url: string }, name: string): Promise<number[]> {
  if ('url' in store) {
    const rows = await queryPostgres<{ id: string }>(store.url, 'SELECT id FROM categories WHERE name = $1', [
      name,
    ]);
    return rows.map((row) => Number(row.id));
  }
  const db = new Sqlite(store.file, { readonly: true });
  try {
    return db.prepare<[string], number>('SELECT id FROM categories WHERE name = ?').pluck().all(name);
  } finally {
    db.close();
  }
}

for (const backend of BACKENDS) {
  test(`a create committed just before a SIGKILL is not made twice by the client's retry (${backend.name})`, async (t) => {
    const { env, store, key: apiKey, cleanup } = await storeToCrash(backend, 'petstore-retry-crash-');
    let server: ServerProcess = await spawnServer(env);
    let restarted: Promise<ServerProcess> = Promise.resolve(server);
    t.after(async () => {
      await killIfRunning(await restarted.catch(() => server));
      await cleanup();
    });

    // The network between the client and the server: the first attempt of each cycle reaches the server,
    // which commits and answers 201; the server is then killed and the answer lost, as if the connection
    // dropped a moment after the COMMIT. Retries go to the restarted server on the same store.
    let killNext = false;
    const network: FetchLike = async (input, init) => {
      const current = await restarted;
      const url = new URL(String(input));
      const target = `${current.url}${url.pathname}${url.search}`;
      if (!killNext) return fetch(target, init);
      killNext = false;
      const answer = await fetch(target, init);
      assert.equal(answer.status, 201, 'the first attempt committed');
      current.child.kill('SIGKILL');
      await current.exited;
      restarted = spawnServer(env).then((next) => {
        server = next;
        return next;
      });
      throw new TypeError('fetch failed: the connection was reset');
    };
    const client = createClient({
      baseUrl: 'http://petstore.invalid',
      apiKey,
      fetch: network,
      maxRetries: 3,
      retry: { baseDelayMs: 50, maxDelayMs: 1_000 },
    });

    for (let cycle = 0; cycle < CYCLES; cycle += 1) {
      const name = `committed then killed ${cycle}`;
      killNext = true;
      const category = await client.createCategory({ name });
      // One row (no duplicate), and it is the one the retry answered with.
      const ids = await idsNamed(store, name);
      assert.deepEqual(ids, [category.id], `cycle ${cycle}: one row, the original id answered`);
    }
    t.diagnostic(`${CYCLES} cycles, 0 duplicates`);
  });
}
