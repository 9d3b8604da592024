import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { KEY_PATTERN } from '../../src/keys/index.js';
import { runCli, type ServerProcess, spawnServer } from '../support/process.js';
import { request, tempDir } from '../support/server.js';

describe('petstore keys', () => {
  const { dir, remove } = tempDir();
  const env = { DATABASE_URL: `sqlite:${path.join(dir, 'keys.db')}`, LOG_LEVEL: 'debug' };
  const issued: string[] = [];
  let server: ServerProcess;

  /** Runs `keys create --json` and returns the one JSON object it printed. */
  async function create(...args: string[]): Promise<Record<string, unknown>> {
    const result = await runCli(['keys', 'create', ...args, '--json'], env);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trim().split('\n');
    assert.equal(lines.length, 1, 'exactly one JSON object');
    const created = JSON.parse(lines[0] as string) as Record<string, unknown>;
    issued.push(created.key as string);
    return created;
  }

  async function statusWith(key: string): Promise<number> {
    const response = await request(`${server.url}/v1/categories`, {
      headers: { authorization: `Bearer ${key}` },
    });
    return response.status;
  }

  /** Polls until the server answers `status` for the key; fails after `limitMs`. */
  async function waitForStatus(key: string, status: number, limitMs: number): Promise<void> {
    const started = Date.now();
    while (Date.now() - started < limitMs) {
      if ((await statusWith(key)) === status) return;
      await sleep(100);
    }
    assert.fail(`the server did not answer ${status} within ${limitMs} ms`);
  }

  before(async () => {
    server = await spawnServer(env);
  });
  after(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    remove();
  });

  test('create --json prints one object with id, key and plan', async () => {
    const created = await create('--plan', 'free', '--name', 'ci');
    assert.match(created.id as string, /^key_[0-9A-Za-z]{12}$/);
    assert.match(created.key as string, KEY_PATTERN);
    assert.equal(created.plan, 'free');
    assert.equal(created.name, 'ci');
    assert.equal(created.limits, null);
    assert.equal(created.digest, undefined, 'the digest is not shown');
  });

  test('enterprise keys carry their own limits', async () => {
    const created = await create('--plan', 'enterprise', '--per-minute', '1000', '--per-day', '20');
    assert.deepEqual(created.limits, { perMinute: 1000, perDay: 20 });
  });

  const wrong: [string, string[]][] = [
    ['no plan', ['create']],
    ['an unknown plan', ['create', '--plan', 'gold']],
    ['enterprise without limits', ['create', '--plan', 'enterprise']],
    ['enterprise with one limit', ['create', '--plan', 'enterprise', '--per-minute', '5']],
    ['limits on another plan', ['create', '--plan', 'pro', '--per-minute', '5', '--per-day', '9']],
    [
      'a limit that is not a whole number',
      ['create', '--plan', 'enterprise', '--per-minute', '1.5', '--per-day', '9'],
    ],
    ['an unknown flag', ['create', '--plan', 'free', '--colour', 'red']],
    ['an empty name', ['create', '--plan', 'free', '--name', ' ']],
    ['revoke without an id', ['revoke']],
    ['an unknown action', ['rotate']],
    ['no action', []],
  ];
  for (const [label, args] of wrong) {
    test(`wrong arguments (${label}) print the usage and exit 2`, async () => {
      const result = await runCli(['keys', ...args], env);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /Usage:/);
      assert.equal(result.stdout, '');
    });
  }

  test('list shows prefixes, never keys', async () => {
    const human = await runCli(['keys', 'list'], env);
    const json = await runCli(['keys', 'list', '--json'], env);
    assert.equal(human.code, 0);
    assert.equal(json.code, 0);
    const listed = (JSON.parse(json.stdout) as { keys: Record<string, unknown>[] }).keys;
    assert.ok(listed.length >= 2);
    for (const entry of listed) {
      assert.match(entry.prefix as string, /^ps_live_[0-9A-Za-z]{4}$/);
      assert.equal(entry.digest, undefined);
    }
    for (const key of issued) {
      assert.ok(!human.stdout.includes(key) && !json.stdout.includes(key), 'no key is listed');
      assert.ok(human.stdout.includes(key.slice(0, 12)), 'its prefix is');
    }
  });

  test('a key created and revoked by the CLI takes effect on the running server within 5 s', async () => {
    const created = await create('--plan', 'pro');
    const key = created.key as string;
    // waitForStatus fails the test when the status has not come within the limit.
    await waitForStatus(key, 200, 5_000);
    const revoke = await runCli(['keys', 'revoke', created.id as string], env);
    assert.equal(revoke.code, 0, revoke.stderr);
    await waitForStatus(key, 401, 5_000);
  });

  test('revoking an unknown id fails with exit 1', async () => {
    const result = await runCli(['keys', 'revoke', 'key_doesnotexist'], env);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /no API key has the id key_doesnotexist/);
  });

  test('neither the SQLite files nor any log line contain an issued key', async () => {
    assert.ok(issued.length >= 3);
    const files = readdirSync(dir).filter((name) => name.startsWith('keys.db'));
    assert.ok(files.includes('keys.db'));
    const bytes = files.map((name) => readFileSync(path.join(dir, name)).toString('latin1')).join('\n');
    const logs = server.output.join('\n');
    assert.ok(logs.length > 0);
    for (const key of issued) {
      assert.ok(!bytes.includes(key), 'a key is in the database files');
      assert.ok(!bytes.includes(key.slice(12)), 'the secret part of a key is in the database files');
      assert.ok(!logs.includes(key), 'a key is in the log');
    }
  });
});

describe('first start of the embedded default', () => {
  test('creates one pro key, prints it once, and never again', async (t) => {
    const { dir, remove } = tempDir();
    t.after(remove);
    const first = await spawnServer({ DATABASE_URL: '' }, { cwd: dir });
    let key: string;
    try {
      const printed = first.output.join('\n');
      const keys = printed.match(/ps_live_[0-9A-Za-z]{32}/g) ?? [];
      assert.equal(keys.length, 1, printed);
      key = keys[0] as string;
      assert.match(printed, /will not be shown again/);
      const response = await request(`${first.url}/v1/categories`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(response.status, 200);
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
    assert.ok(
      readdirSync(path.join(dir, 'data')).includes('petstore.db'),
      'the default file is data/petstore.db',
    );

    const second = await spawnServer({ DATABASE_URL: '' }, { cwd: dir });
    try {
      assert.doesNotMatch(second.output.join('\n'), /ps_live_/);
      const response = await request(`${second.url}/v1/categories`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(response.status, 200, 'the first key still works after a restart');
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});
