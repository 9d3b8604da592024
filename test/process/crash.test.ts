import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Sqlite } from '../../src/storage/index.js';
import { eventually } from '../support/assertions.js';
import { BACKENDS, queryPostgres } from '../support/backends.js';
import { killIfRunning, type ServerProcess, spawnServer, storeToCrash } from '../support/process.js';
import { sleep, within } from '../support/raw-http.js';

const CYCLES = 20;
const WORKERS = 32;
/** Kill this long after the load started: random, so the kill lands at every stage of a group commit. */
const KILL_AFTER_MS = { min: 300, max: 900 };
/**
 * And not before this many creates of the cycle were acknowledged (random as well): on a slow machine the
 * kill waits for them, so that the total below is reached whatever the seed and the machine's speed.
 */
const KILL_AFTER_ACKNOWLEDGED = { min: 50, max: 150 };
/** Fewer acknowledged creates than this and the test did not put the durability promise under load. */
const MIN_ACKNOWLEDGED = CYCLES * KILL_AFTER_ACKNOWLEDGED.min;

/**
 * A small seeded generator (mulberry32), so that a failing run can be replayed with the seed it prints:
 * CRASH_SEED=<seed> npm test.
 */
function randomFrom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface LoadResult {
  acknowledged: number;
  /** What went wrong before the kill: any of it means the server misbehaved under plain load. */
  problems: string[];
}

/**
 * `WORKERS` loops, each POSTing one category after another over fetch's keep-alive pool, until `stopped()`.
 * A category counts as acknowledged only when its 201 and the whole body arrived; it is then recorded in
 * `acknowledged` (id to name). Failures after the kill are the expected connection errors and end a loop.
 */
async function createUntilKilled(
  url: string,
  key: string,
  cycle: number,
  stopped: () => boolean,
  acknowledged: Map<number, string>,
): Promise<LoadResult> {
  const problems: string[] = [];
  let count = 0;
  const worker = async (w: number) => {
    for (let n = 0; !stopped(); n += 1) {
      // Unique per cycle, worker and attempt, so that a row can be traced to the request that made it.
      const name = `crash c${cycle} w${w} n${n}`;
      let status: number;
      let text: string;
      try {
        const response = await fetch(`${url}/v1/categories`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({ name }),
        });
        status = response.status;
        text = await response.text();
      } catch (error) {
        if (!stopped()) problems.push(`${name}: ${String((error as Error).cause ?? error)}`);
        return;
      }
      if (status !== 201) {
        problems.push(`${name}: answered ${status} ${text}`);
        return;
      }
      const category = JSON.parse(text) as { id: unknown; name: unknown };
      if (!Number.isInteger(category.id) || category.name !== name) {
        problems.push(`${name}: answered 201 with ${text}`);
        return;
      }
      const id = category.id as number;
      if (acknowledged.has(id)) {
        problems.push(`${name}: id ${id} was already acknowledged for ${acknowledged.get(id)}`);
        return;
      }
      acknowledged.set(id, name);
      count += 1;
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  return { acknowledged: count, problems };
}

/** Lists where an acknowledged category is missing or differs; empty when every one is there. */
function lostOrChanged(acknowledged: Map<number, string>, stored: Map<number, string>): string[] {
  const lost: string[] = [];
  for (const [id, name] of acknowledged) {
    const found = stored.get(id);
    if (found !== name)
      lost.push(`${id} ${JSON.stringify(name)}: ${found === undefined ? 'missing' : JSON.stringify(found)}`);
  }
  return lost;
}

/** Asserts that the running server lists every acknowledged category, under its id, with its name. */
async function assertServedAll(
  url: string,
  key: string,
  acknowledged: Map<number, string>,
  when: string,
): Promise<void> {
  const response = await fetch(`${url}/v1/categories`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(response.status, 200, when);
  const list = (await response.json()) as { id: number; name: string }[];
  const served = new Map(list.map((category) => [category.id, category.name]));
  const lost = lostOrChanged(acknowledged, served);
  assert.deepEqual(lost.slice(0, 20), [], `${when}: ${lost.length} acknowledged categories lost or changed`);
  // Every request was sent once, so a name stored twice would be a write applied twice.
  const names = new Set(list.map((category) => category.name));
  assert.equal(names.size, list.length, `${when}: some category name is stored twice`);
}

/**
 * Opens the file the killed process left (read-only, so that this check cannot repair or checkpoint it
 * before the next server opens it) and asserts that SQLite finds it sound and holds every acknowledged row.
 */
async function assertStoreSound(
  store: { file: string } | { url: string },
  acknowledged: Map<number, string>,
  when: string,
): Promise<void> {
  if ('url' in store) {
    // PostgreSQL checks its own pages; what matters here is that every acknowledged row is in the table.
    const rows = await queryPostgres<{ id: string; name: string }>(
      store.url,
      'SELECT id, name FROM categories',
    );
    const lost = lostOrChanged(acknowledged, new Map(rows.map((row) => [Number(row.id), row.name])));
    assert.deepEqual(lost.slice(0, 20), [], `${when}: ${lost.length} acknowledged rows lost or changed`);
    return;
  }
  const db = new Sqlite(store.file, { readonly: true });
  try {
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok', `${when}: integrity_check`);
    const rows = db.prepare<[], { id: number; name: string }>('SELECT id, name FROM categories').all();
    const lost = lostOrChanged(acknowledged, new Map(rows.map((row) => [row.id, row.name])));
    assert.deepEqual(
      lost.slice(0, 20),
      [],
      `${when}: ${lost.length} acknowledged rows lost or changed in the file`,
    );
  } finally {
    db.close();
  }
}

for (const backend of BACKENDS) {
  test(`SIGKILL under concurrent creates never loses an acknowledged category nor corrupts the store (${backend.name})`, async (t) => {
    const seed = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
    t.diagnostic(`seed ${seed} (replay with CRASH_SEED=${seed})`);
    const random = randomFrom(seed);
    const { env, store, key, cleanup } = await storeToCrash(backend, 'petstore-crash-');
    let server: ServerProcess | undefined;
    t.after(async () => {
      // A failed assertion must not leave a server running or the directory behind.
      await killIfRunning(server);
      await cleanup();
    });

    const acknowledged = new Map<number, string>();
    const perCycle: number[] = [];
    for (let cycle = 0; cycle < CYCLES; cycle += 1) {
      const current = await spawnServer(env);
      server = current;
      await assertServedAll(current.url, key, acknowledged, `after restart ${cycle}`);

      let stopped = false;
      const before = acknowledged.size;
      const load = createUntilKilled(current.url, key, cycle, () => stopped, acknowledged);
      let ended = false;
      void load.then(() => {
        ended = true;
      });
      const killAfterMs = KILL_AFTER_MS.min + Math.floor(random() * (KILL_AFTER_MS.max - KILL_AFTER_MS.min));
      const atLeast =
        KILL_AFTER_ACKNOWLEDGED.min +
        Math.floor(random() * (KILL_AFTER_ACKNOWLEDGED.max - KILL_AFTER_ACKNOWLEDGED.min));
      await sleep(killAfterMs);
      // Every worker ended early (a failure, reported below), or enough creates are acknowledged.
      await eventually(
        `cycle ${cycle}: ${atLeast} creates acknowledged before the kill`,
        () => ended || acknowledged.size - before >= atLeast,
        60_000,
      );
      // Flag first: every request failing from now on failed because of the kill.
      stopped = true;
      current.child.kill('SIGKILL');
      const exit = await current.exited;
      // Died of our signal, not of something it hit under load before the kill.
      assert.deepEqual(
        exit,
        { code: null, signal: 'SIGKILL' },
        `cycle ${cycle}:\n${current.output.join('\n')}`,
      );
      const result = await within(load, 10_000);
      assert.ok(result !== 'timeout', `cycle ${cycle}: requests still pending 10 s after the kill`);
      assert.deepEqual(
        result.problems.slice(0, 10),
        [],
        `cycle ${cycle}: ${result.problems.length} failures before the kill`,
      );
      perCycle.push(result.acknowledged);

      await assertStoreSound(store, acknowledged, `after kill ${cycle}`);
    }

    // One last start on the crashed file, then a clean stop, which must leave a sound file too.
    const last = await spawnServer(env);
    server = last;
    await assertServedAll(last.url, key, acknowledged, 'after the last restart');
    last.child.kill('SIGTERM');
    assert.deepEqual(await within(last.exited, 10_000), { code: 0, signal: null }, last.output.join('\n'));
    await assertStoreSound(store, acknowledged, 'after the clean stop');

    t.diagnostic(
      `${acknowledged.size} creates acknowledged over ${CYCLES} kills (per cycle: ${perCycle.join(' ')})`,
    );
    assert.ok(
      acknowledged.size >= MIN_ACKNOWLEDGED,
      `only ${acknowledged.size} creates were acknowledged over ${CYCLES} cycles`,
    );
  });
}
