import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { API_VERSION } from '../../src/contract/index.js';
import { awaitMinuteRoom, BACKENDS, backendEnvironment, REDIS_URL } from '../support/backends.js';
import { createKey } from '../support/fleet.js';
import { runCli, type ServerProcess, spawnServer } from '../support/process.js';
import { request, tempDir } from '../support/server.js';

/** The checkout: dist/test/upgrade/ is three levels below it. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const POSTGRES_REDIS = BACKENDS.find(
  (backend) => backend.storage === 'postgres',
) as (typeof BACKENDS)[number];

interface Release {
  version: string;
  commit: string | null;
  schema: number;
}

/**
 * The release before this one, built from its commit in releases.json: its source from git (`git archive`),
 * compiled with this checkout's TypeScript against this checkout's node_modules (the same dependencies it
 * locked, give or take what came since), so nothing is downloaded, beside this checkout's browser parts.
 * Answers its CLI.
 */
function buildPrevious(into: string): { release: Release; cli: string } {
  const { releases } = JSON.parse(readFileSync(path.join(ROOT, 'releases.json'), 'utf8')) as {
    releases: Release[];
  };
  const release = releases.at(-2) as Release;
  execFileSync('sh', ['-c', `git -C "${ROOT}" archive ${release.commit} | tar -x -C "${into}"`]);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(into, 'node_modules'));
  writeFileSync(
    path.join(into, 'tsconfig.server.json'),
    JSON.stringify({ extends: './tsconfig.json', include: ['src'] }),
  );
  execFileSync(
    process.execPath,
    [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.server.json'],
    {
      cwd: into,
    },
  );
  // Its server refuses to start without its browser parts; the upgrade is of the API and the database, so it
  // serves this checkout's built ones (bundling its own would type-check old code against new packages).
  for (const part of ['console', 'reference']) {
    symlinkSync(path.join(ROOT, 'dist', part), path.join(into, 'dist', part));
  }
  return { release, cli: path.join(into, 'dist', 'src', 'cli', 'main.js') };
}

/**
 * A rolling upgrade on PostgreSQL + Redis, as the migration policy (docs/upgrades-and-backups.md) promises it: the new release migrates the
 * database, the previous release keeps serving it beside the new one, and the old instance is drained and
 * stopped under traffic.
 */
describe('a rolling upgrade from the previous release, on one PostgreSQL database with Redis', () => {
  let dir: ReturnType<typeof tempDir>;
  let previous: ReturnType<typeof buildPrevious>;
  let backend: Awaited<ReturnType<typeof backendEnvironment>>;
  let env: Record<string, string>;
  let old: ServerProcess;
  let current: ServerProcess;

  before(async () => {
    dir = tempDir('petstore-previous-');
    previous = buildPrevious(dir.dir);
    backend = await backendEnvironment(POSTGRES_REDIS, '');
    env = { ...backend.env, LOG_LEVEL: 'info', DATABASE_POOL_SIZE: '4' };
    // The previous release made the database; the new one migrates it, as an upgrade starts.
    const made = await runCli(['migrate'], env, { cli: previous.cli });
    assert.equal(made.code, 0, made.stderr);
    const migrated = await runCli(['migrate'], env);
    assert.equal(migrated.code, 0, migrated.stderr);
    old = await spawnServer(env, { cli: previous.cli });
    current = await spawnServer(env);
  });
  after(async () => {
    for (const server of [old, current]) server?.child.kill('SIGTERM');
    await Promise.all([old?.exited, current?.exited]);
    await backend?.cleanup();
    dir?.remove();
  });

  const as = (key: string) => ({ authorization: `Bearer ${key}` });

  test('both releases serve the migrated database, each saying its version', async () => {
    const versions = await Promise.all(
      [old, current].map(async (server) => {
        const document = await request(`${server.url}/openapi.json`);
        return (document.body as { info: { version: string } }).info.version;
      }),
    );
    assert.deepEqual(versions, [previous.release.version, API_VERSION]);
    assert.notEqual(previous.release.version, API_VERSION);
  });

  test('limits are exact across the two releases: a 30-a-minute key gets 30 of 40 sent to both', async () => {
    const { key } = await createKey(env, '--plan', 'enterprise', '--per-minute', '30', '--per-day', '1000');
    const redis = new Redis(REDIS_URL);
    try {
      await awaitMinuteRoom(redis, 20_000);
    } finally {
      redis.disconnect();
    }
    // Each instance learns of the key by itself (a new key is looked up on its first use).
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        request(`${(index % 2 === 0 ? old : current).url}/v1/categories`, { headers: as(key) }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    assert.equal(statuses.filter((status) => status === 200).length, 30, statuses.join(' '));
    assert.equal(statuses.filter((status) => status === 429).length, 10, statuses.join(' '));
  });

  test('admin tokens made by either release work on both; the new one says who made each, the old one’s unrecorded', async () => {
    const create = async (name: string, options: { cli?: string } = {}) => {
      const made = await runCli(['admin-tokens', 'create', '--name', name, '--json'], env, options);
      assert.equal(made.code, 0, made.stderr);
      return JSON.parse(made.stdout) as { id: string; token: string };
    };
    const byOld = await create('made by the old cli', { cli: previous.cli });
    const byNew = await create('made by the new cli');
    for (const server of [old, current])
      for (const { token } of [byOld, byNew]) {
        const keys = await request(`${server.url}/admin/v1/keys`, { headers: as(token) });
        assert.equal(keys.status, 200, `${server.url}: ${keys.text}`);
      }
    const listed = await request(`${current.url}/admin/v1/admin-tokens`, { headers: as(byNew.token) });
    assert.equal(listed.status, 200, listed.text);
    const makerOf = (id: string) =>
      (listed.body as { id: string; createdBy: unknown }[]).find((token) => token.id === id)?.createdBy;
    // The old release writes the columns it knows: its token's maker is not recorded.
    assert.equal(makerOf(byOld.id), null);
    assert.deepEqual(makerOf(byNew.id), { kind: 'cli', id: 'cli', name: null });
    const oldList = await runCli(['admin-tokens', 'list', '--json'], env, { cli: previous.cli });
    assert.equal(oldList.code, 0, oldList.stderr);
    const ids = (JSON.parse(oldList.stdout) as { tokens: { id: string }[] }).tokens.map((token) => token.id);
    assert.ok(ids.includes(byOld.id) && ids.includes(byNew.id), oldList.stdout);
  });

  test('under creates and lists through both, the old one drained and stopped: no 5xx, no create lost', async (t) => {
    const { key } = await createKey(
      env,
      '--plan',
      'enterprise',
      '--per-minute',
      '1000000',
      '--per-day',
      '10000000',
    );
    const acknowledged = new Set<number>();
    const statuses = new Map<string, number>();
    let sent = 0;
    let draining = false;
    const started = Date.now();
    /** One client: creates and lists, through the old instance until it is drained, then the new one. */
    async function client(index: number) {
      for (let round = 0; Date.now() - started < 4_000; round += 1) {
        const server = !draining && (index + round) % 2 === 0 ? old : current;
        const create = round % 2 === 0;
        sent += 1;
        const answer = await request(`${server.url}/v1/categories`, {
          method: create ? 'POST' : 'GET',
          headers: { ...as(key), ...(create ? { 'content-type': 'application/json' } : {}) },
          ...(create ? { body: JSON.stringify({ name: `upgrade ${index}-${round}` }) } : {}),
        });
        const label = `${server === old ? previous.release.version : API_VERSION} ${answer.status}`;
        statuses.set(label, (statuses.get(label) ?? 0) + 1);
        if (create && answer.status === 201) acknowledged.add((answer.body as { id: number }).id);
      }
    }
    const clients = Promise.all(Array.from({ length: 8 }, (_, index) => client(index)));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // The balancer stops sending to the old instance, then it is stopped: it drains what it holds.
    draining = true;
    old.child.kill('SIGTERM');
    const exit = await old.exited;
    await clients;
    t.diagnostic(
      `${sent} requests in 4 s; by release and status: ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    t.diagnostic(`the old instance exited with ${JSON.stringify(exit)}`);

    assert.equal(exit.code, 0, 'the old release drained and exited cleanly');
    for (const [label, count] of statuses) {
      const status = Number(label.split(' ')[1]);
      assert.ok(status < 500 || status === 503, `${count} answers ${label}`);
      assert.ok(status === 200 || status === 201 || status === 503, `${count} answers ${label}`);
    }
    const list = await request(`${current.url}/v1/categories`, { headers: as(key) });
    const stored = new Set((list.body as { id: number }[]).map((category) => category.id));
    const lost = [...acknowledged].filter((id) => !stored.has(id));
    assert.deepEqual(lost, [], `${acknowledged.size} creates acknowledged, none lost`);
    assert.ok(acknowledged.size > 50, `a real load (${acknowledged.size} creates)`);
  });
});
