import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
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
    PETSTORE_DATA_DIR: dir,
    REDIS_URL,
    REDIS_PREFIX: redis.prefix,
  };
  // A Redis client left open would keep the process alive after the failed listen.
  const result = await within(runCli(['serve'], env), 15_000);
  assert.notEqual(result, 'timeout', 'the process did not exit after failing to listen');
  if (result === 'timeout') return;
  assert.equal(result.code, 1, result.stderr);
  assert.equal(
    result.stderr,
    `petstore: could not listen on 127.0.0.1:${port}: PORT ${port} is taken on 127.0.0.1 by another process: stop it, or set PORT to a free port (0 picks one)\n`,
  );
  // The fresh database got no first key: the next start that listens makes it and shows it.
  assert.doesNotMatch(result.stdout, /ps_live_|first API key/);
  assert.equal(existsSync(path.join(dir, 'first-api-key.txt')), false);
});

test('a HOST that is not this machine ends `petstore serve` with exit 1 naming HOST', async (t) => {
  const { dir, remove } = tempDir('petstore-start-');
  t.after(remove);
  const base = { PORT: '0', DATABASE_URL: `sqlite:${path.join(dir, 'petstore.db')}`, PETSTORE_DATA_DIR: dir };
  for (const [host, expected] of [
    [
      '192.0.2.1',
      /^petstore: could not listen on 192\.0\.2\.1:0: HOST 192\.0\.2\.1 is not an address of this machine/,
    ],
    [
      'no-such-host.invalid',
      /^petstore: could not listen on no-such-host\.invalid:0: HOST no-such-host\.invalid is not a name/,
    ],
  ] as const) {
    const result = await within(runCli(['serve'], { ...base, HOST: host }), 15_000);
    assert.notEqual(result, 'timeout');
    if (result === 'timeout') return;
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, expected);
  }
});
