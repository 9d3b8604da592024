import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { BACKENDS, backendEnvironment } from './backends.js';
import { runCli, spawnServer } from './process.js';
import { request } from './server.js';

const POSTGRES_REDIS = BACKENDS.find(
  (backend) => backend.storage === 'postgres',
) as (typeof BACKENDS)[number];
/** The number of instances a fleet test runs. */
export const INSTANCES = 4;

/** `keys create --json` against the fleet's store; returns the key and its id. */
export async function createKey(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ key: string; id: string }> {
  const result = await runCli(['keys', 'create', ...args, '--json'], env);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as { key: string; id: string };
}

/**
 * Makes keys through the admin API of one instance: a command line for the admin token once, then a request
 * a key. For tests that need many keys: 35 by the command line took about 50 s of a 63 s test here.
 */
export async function adminKeyMaker(
  env: Record<string, string>,
  server: { url: string },
): Promise<(body: Record<string, unknown>) => Promise<{ key: string; id: string }>> {
  const made = await runCli(['admin-tokens', 'create', '--name', 'key maker', '--json'], env);
  assert.equal(made.code, 0, made.stderr);
  const { token } = JSON.parse(made.stdout) as { token: string };
  return async (body) => {
    const created = await request(`${server.url}/admin/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(created.status, 201, created.text);
    return created.body as { key: string; id: string };
  };
}

/**
 * A fleet of instances on 127.0.0.1 sharing one fresh PostgreSQL database and one Redis prefix, each with its
 * clock moved by `offsets[i]` milliseconds, configured by `extraEnv` besides.
 */
export async function startFleet(offsets: number[], extraEnv: Record<string, string> = {}) {
  const backend = await backendEnvironment(POSTGRES_REDIS, '');
  // info: spawnServer waits for the line that says where the server listens.
  const env: Record<string, string> = {
    ...backend.env,
    LOG_LEVEL: 'info',
    DATABASE_POOL_SIZE: '4',
    ...extraEnv,
  };
  // Migrate once first; the instances then start at once (their migrations find nothing to do).
  assert.equal((await runCli(['migrate'], env)).code, 0);
  const started = await Promise.allSettled(
    offsets.map((offset) => spawnServer({ ...env, PETSTORE_CLOCK_OFFSET_MS: String(offset) })),
  );
  const servers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  if (servers.length < offsets.length) {
    // Never leave half a fleet running: it would keep the test process alive.
    for (const server of servers) server.child.kill('SIGKILL');
    await backend.cleanup();
    throw (started.find((result) => result.status === 'rejected') as PromiseRejectedResult).reason;
  }
  return {
    env,
    servers,
    async stop() {
      for (const server of servers) server.child.kill('SIGTERM');
      await Promise.all(servers.map((server) => server.exited));
      await backend.cleanup();
    },
  };
}

/** Waits until every instance accepts `key` (they reread keys about once a second); fails after 5 s. */
export async function awaitKeyEverywhere(servers: { url: string }[], key: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (const server of servers) {
    while (
      (await request(`${server.url}/v1/categories`, { headers: { authorization: `Bearer ${key}` } }))
        .status === 401
    ) {
      if (Date.now() > deadline) throw new Error(`${server.url} still refuses a new key after 5 s`);
      await sleep(100);
    }
  }
}
