import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { eventually } from '../support/assertions.js';
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
    // Both serve the key before the load begins: a condition, not a fixed wait.
    for (const server of servers) {
      await eventually(`${server.url} serves the key`, async () => {
        const answer = await request(`${server.url}/v1/categories`, {
          headers: { authorization: `Bearer ${key}` },
        });
        return answer.status === 200;
      });
    }

    // Twenty clients per instance; Redis dies once each instance has answered a good number of requests,
    // and the load goes on for at least 2 s after, until each has answered enough with Redis dead and the
    // fail closed one has refused: what is asserted below is then seen however slow the machine.
    const statuses = new Map<ServerProcess, { before: number[]; after: number[] }>(
      servers.map((server) => [server, { before: [], after: [] }]),
    );
    let killed = false;
    let stop = false;
    const load = servers.flatMap((server) =>
      Array.from({ length: 20 }, async () => {
        while (!stop) {
          const status = await getStatus(
            `${server.url}/v1/categories`,
            { authorization: `Bearer ${key}` },
            agent,
          );
          statuses.get(server)?.[killed ? 'after' : 'before'].push(status);
        }
      }),
    );
    const answered = (when: 'before' | 'after') =>
      servers.every((server) => (statuses.get(server)?.[when].length ?? 0) >= 100);
    const seen = (server: ServerProcess, when: 'before' | 'after') => new Set(statuses.get(server)?.[when]);
    try {
      await eventually('each instance answered 100 requests with Redis up', () => answered('before'), 30_000);
      // Flag first: an answer that arrives from here on may already have met the dead Redis.
      killed = true;
      redis.kill('SIGKILL');
      await once(redis, 'exit');
      await sleep(2_000);
      await eventually(
        'each instance answered 100 requests with Redis dead, and the fail closed one refused',
        () => answered('after') && seen(closed, 'after').has(503),
        30_000,
      );
    } finally {
      stop = true;
      await Promise.all(load);
    }
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
