import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { BACKENDS, backendEnvironment } from '../support/backends.js';
import { createUnlimitedKey, freePort, type ServerProcess, spawnServer } from '../support/process.js';
import { getStatus, request } from '../support/server.js';

const POSTGRES_REDIS = BACKENDS.find(
  (backend) => backend.storage === 'postgres',
) as (typeof BACKENDS)[number];

/** A Redis of the test's own, on its own port, so stopping it disturbs nothing else on the machine. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const client = new Redis({ port, lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: null });
  client.on('error', () => {});
  await client.connect().catch(() => {});
  await client.ping();
  client.disconnect();
  return child;
}

describe('Redis stopped in the middle of a load', () => {
  test('fail open serves on local limits, fail closed answers 503; never a 500; both recover', async (t) => {
    const port = await freePort();
    let redis = await startRedis(port);
    const backend = await backendEnvironment(POSTGRES_REDIS, '');
    const env = { ...backend.env, REDIS_URL: `redis://127.0.0.1:${port}`, LOG_LEVEL: 'info' };
    const key = await createUnlimitedKey(env);
    const servers: ServerProcess[] = [];
    const agent = new http.Agent({ keepAlive: true, maxSockets: 20 });
    t.after(async () => {
      agent.destroy();
      for (const server of servers) server.child.kill('SIGKILL');
      await Promise.all(servers.map((server) => server.exited));
      redis.kill('SIGKILL');
      await backend.cleanup();
    });
    const open = await spawnServer({ ...env, RATE_LIMIT_FAIL: 'open' });
    servers.push(open);
    const closed = await spawnServer({ ...env, RATE_LIMIT_FAIL: 'closed' });
    servers.push(closed);
    await sleep(1_200);

    // Twenty clients per instance, for about 3 s; Redis dies after the first second.
    const statuses = new Map<ServerProcess, { before: number[]; after: number[] }>(
      servers.map((server) => [server, { before: [], after: [] }]),
    );
    let killed = false;
    const stopAt = Date.now() + 3_000;
    const load = servers.flatMap((server) =>
      Array.from({ length: 20 }, async () => {
        while (Date.now() < stopAt) {
          const status = await getStatus(
            `${server.url}/v1/categories`,
            { authorization: `Bearer ${key}` },
            agent,
          );
          statuses.get(server)?.[killed ? 'after' : 'before'].push(status);
        }
      }),
    );
    await sleep(1_000);
    // Flag first: an answer that arrives from here on may already have met the dead Redis.
    killed = true;
    redis.kill('SIGKILL');
    await once(redis, 'exit');
    await Promise.all(load);

    const seen = (server: ServerProcess, when: 'before' | 'after') => new Set(statuses.get(server)?.[when]);
    assert.deepEqual([...seen(open, 'before')], [200]);
    assert.deepEqual([...seen(closed, 'before')], [200]);
    assert.deepEqual([...seen(open, 'after')], [200], 'fail open keeps serving');
    assert.ok(seen(closed, 'after').has(503), 'fail closed refuses');
    assert.ok([...seen(closed, 'after')].every((status) => status === 200 || status === 503));

    const refused = await request(`${closed.url}/v1/categories`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(refused.status, 503);
    assert.equal((refused.body as { code: string }).code, 'service_unavailable');
    assert.equal(refused.headers.get('retry-after'), '1');

    const openReady = await request(`${open.url}/readyz`);
    assert.equal(openReady.status, 200);
    assert.deepEqual(openReady.body, {
      status: 'degraded',
      checks: { postgres: 'ok', redis: 'unreachable' },
    });
    assert.equal((await request(`${closed.url}/readyz`)).status, 503);
    const metrics = await request(`${open.url}/metrics`);
    assert.match(metrics.text, /petstore_ratelimit_fail_open_total [1-9]\d*/);
    assert.ok(
      open.output.some((line) => line.includes('RATE_LIMIT_FAIL=open')),
      'fail-open is logged',
    );

    // Redis comes back: both instances use it again by themselves.
    redis = await startRedis(port);
    const deadline = Date.now() + 10_000;
    while (
      (await request(`${closed.url}/v1/categories`, { headers: { authorization: `Bearer ${key}` } }))
        .status !== 200
    ) {
      assert.ok(Date.now() < deadline, 'fail closed recovers once Redis is back');
      await sleep(200);
    }
    assert.equal((await request(`${open.url}/readyz`)).status, 200);
  });
});
