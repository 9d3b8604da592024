import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { createTestRedisPrefix, REDIS_URL } from '../support/backends.js';
import { runCli } from '../support/process.js';
import { within } from '../support/raw-http.js';
import { tempDir } from '../support/server.js';

test('a port already in use ends `petstore serve` with exit 1, even with Redis connected', async (t) => {
  const { dir, remove } = tempDir('petstore-start-');
  const redis = createTestRedisPrefix();
  const taken = net.createServer();
  taken.listen(0, '127.0.0.1');
  await once(taken, 'listening');
  t.after(async () => {
    taken.close();
    await redis.clear();
    remove();
  });
  const port = (taken.address() as net.AddressInfo).port;
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: `sqlite:${path.join(dir, 'petstore.db')}`,
    REDIS_URL,
    REDIS_PREFIX: redis.prefix,
  };
  // A Redis client left open would keep the process alive after the failed listen.
  const result = await within(runCli(['serve'], env), 15_000);
  assert.notEqual(result, 'timeout', 'the process did not exit after failing to listen');
  if (result === 'timeout') return;
  assert.equal(result.code, 1, result.stderr);
  assert.match(`${result.stdout}${result.stderr}`, /EADDRINUSE/);
});
