import assert from 'node:assert/strict';
import { once } from 'node:events';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createTestRedisPrefix, REDIS_URL } from '../support/backends.js';
import { runCli, spawnServer } from '../support/process.js';
import { within } from '../support/raw-http.js';
import { request, tempDir } from '../support/server.js';

/** The checkout: dist/test/process/ is three levels below it. */
/**
 * How long a start that must fail may take to exit: a bound that reports a hang, not a pause. A start that
 * fails exits in about a second here; with two full suites beside it, one took over 15 s.
 */
const EXIT_WITHIN_MS = 60_000;
const PACKAGE = fileURLToPath(new URL('../../../', import.meta.url));

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
  const result = await within(runCli(['serve'], env), EXIT_WITHIN_MS);
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
    const result = await within(runCli(['serve'], { ...base, HOST: host }), EXIT_WITHIN_MS);
    assert.notEqual(result, 'timeout');
    if (result === 'timeout') return;
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, expected);
  }
});

test('a build without its browser parts ends `petstore serve` with exit 1 saying so, even with Redis connected', async (t) => {
  // A copy of the package's server alone: its compiled code and package.json, this checkout's packages, and
  // no dist/reference or dist/console, as after a `tsc` without `npm run build`.
  const { dir, remove } = tempDir('petstore-unbuilt-');
  const redis = createTestRedisPrefix();
  t.after(async () => {
    await redis.clear();
    remove();
  });
  const root = path.join(dir, 'package');
  cpSync(path.join(PACKAGE, 'dist', 'src'), path.join(root, 'dist', 'src'), { recursive: true });
  cpSync(path.join(PACKAGE, 'package.json'), path.join(root, 'package.json'));
  symlinkSync(path.join(PACKAGE, 'node_modules'), path.join(root, 'node_modules'));
  const data = path.join(dir, 'data');
  mkdirSync(data);
  const env = {
    PORT: '0',
    HOST: '127.0.0.1',
    PETSTORE_DATA_DIR: data,
    REDIS_URL,
    REDIS_PREFIX: redis.prefix,
  };
  // Killed at 60 s: before the fix it said why, then stayed up on its Redis client and its timers.
  const result = await runCli(['serve'], env, {
    cli: path.join(root, 'dist', 'src', 'cli', 'main.js'),
    timeoutMs: 60_000,
  });
  assert.equal(result.code, 1, `exit ${result.code}: ${result.stderr}`);
  assert.match(
    result.stderr,
    /^petstore: dist\/(reference|console)\/[\w.-]+ is missing: run npm run build\n$/,
  );
});

describe('a SQLite DATABASE_URL that names no database does not start an empty one', () => {
  /** A data directory whose first-api-key.txt holds the only copy of the real database's first key. */
  function dataDirWithKeyFile(dir: string): { dataDir: string; keyFile: string; text: string } {
    const dataDir = path.join(dir, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    const keyFile = path.join(dataDir, 'first-api-key.txt');
    const text = 'Created the first API key, key_realrealreal (plan pro):\n\n  ps_live_the_real_one\n';
    writeFileSync(keyFile, text, { mode: 0o600 });
    return { dataDir, keyFile, text };
  }

  /** Asserts a refused start: exit 1, one line on stderr matching `message`, nothing on stdout. */
  function assertRefused(result: { code: number | null; stdout: string; stderr: string }, message: RegExp) {
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stdout, '');
    assert.equal(result.stderr.split('\n').length, 2, `one line: ${result.stderr}`);
    assert.match(result.stderr, message);
  }

  test('a directory that does not exist is refused, and nothing is created', async (t) => {
    const { dir, remove } = tempDir('petstore-start-');
    t.after(remove);
    const { dataDir, keyFile, text } = dataDirWithKeyFile(dir);
    const result = await runCli(
      ['serve'],
      {
        PORT: '0',
        DATABASE_URL: `sqlite:${path.join(dir, 'nonexistent', 'dir', 'x.db')}`,
        PETSTORE_DATA_DIR: dataDir,
      },
      { timeoutMs: 15_000 },
    );
    assertRefused(
      result,
      /^petstore: could not open DATABASE_URL sqlite:.*\/nonexistent\/dir\/x\.db: the directory .*\/nonexistent\/dir does not exist: check the path/,
    );
    assert.equal(existsSync(path.join(dir, 'nonexistent')), false, 'no directory was made');
    assert.equal(readFileSync(keyFile, 'utf8'), text, 'the first key file is as it was');
    assert.deepEqual(readdirSync(dataDir), ['first-api-key.txt']);
  });

  test('a new file outside the data directory needs petstore migrate first; then its first key goes to a file named after it', async (t) => {
    const { dir, remove } = tempDir('petstore-start-');
    t.after(remove);
    const { dataDir, keyFile, text } = dataDirWithKeyFile(dir);
    const elsewhere = path.join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    const file = path.join(elsewhere, 'typo.db');
    const env = { DATABASE_URL: `sqlite:${file}`, PETSTORE_DATA_DIR: dataDir };
    const result = await runCli(['serve'], { ...env, PORT: '0' }, { timeoutMs: 15_000 });
    assertRefused(
      result,
      /^petstore: could not open DATABASE_URL sqlite:.*typo\.db: no database is there, and a server creates a new one only in the data directory \(.*data\): check the path, or if it is right, create the database first with 'petstore migrate'\n$/,
    );
    assert.deepEqual(readdirSync(elsewhere), [], 'no database was made');
    assert.equal(readFileSync(keyFile, 'utf8'), text);

    assert.equal((await runCli(['migrate'], env)).code, 0);
    const server = await spawnServer(env);
    try {
      const named = path.join(dataDir, 'first-api-key.typo.txt');
      assert.ok(
        server.output.some((line) => line.includes(`it is in ${named}`)),
        server.output.join('\n'),
      );
      const response = await request(`${server.url}/v1/categories`, {
        headers: { authorization: `Bearer ${/ps_live_\w+/.exec(readFileSync(named, 'utf8'))?.[0]}` },
      });
      assert.equal(response.status, 200);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    assert.equal(readFileSync(keyFile, 'utf8'), text, 'the other database’s key file is as it was');
  });

  test('the default database: its first start makes the data directory 0700 and the database 0600 under umask 022, and never overwrites a key file', async (t) => {
    const { dir, remove } = tempDir('petstore-start-');
    const umask = process.umask(0o022);
    t.after(() => {
      process.umask(umask);
      remove();
    });
    const dataDir = path.join(dir, 'fresh', 'data');
    const env = { DATABASE_URL: '', PETSTORE_DATA_DIR: dataDir };
    const first = await spawnServer(env);
    const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);
    try {
      assert.equal(mode(dataDir), '700');
      for (const name of ['petstore.db', 'petstore.db-wal', 'petstore.db-shm', 'first-api-key.txt']) {
        assert.equal(mode(path.join(dataDir, name)), '600', name);
      }
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
    // The database is gone (moved, or deleted to start over) and its key file is still there: the next first
    // start writes its key beside it, and says where.
    const keyFile = path.join(dataDir, 'first-api-key.txt');
    const text = readFileSync(keyFile, 'utf8');
    for (const suffix of ['', '-wal', '-shm'])
      rmSync(path.join(dataDir, `petstore.db${suffix}`), { force: true });
    const second = await spawnServer(env);
    try {
      const line = second.output.find((output) => output.includes('created the first API key')) ?? '';
      const id = /created the first API key, (key_\w+);/.exec(line)?.[1];
      const beside = path.join(dataDir, `first-api-key.${id}.txt`);
      assert.equal(
        line,
        `petstore: created the first API key, ${id}; it is in ${beside} (readable by this user only; ${keyFile} was there already and is left as it is): store it, then delete the file`,
      );
      assert.equal(mode(beside), '600');
      assert.notEqual(readFileSync(beside, 'utf8'), text);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
    assert.equal(readFileSync(keyFile, 'utf8'), text, 'never overwritten');
  });
});
