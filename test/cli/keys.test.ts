import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { KEY_PATTERN } from '../../src/keys/index.js';
import { Sqlite } from '../../src/storage/index.js';
import { packageCopy, runCli, type ServerProcess, spawnServer } from '../support/process.js';
import { request, startTestServer, tempDir } from '../support/server.js';

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
    const created = await create('--plan', 'enterprise', '--per-minute', '20', '--per-day', '1000');
    assert.deepEqual(created.limits, { perMinute: 20, perDay: 1000 });
    // A day as long as a minute is allowed: the minute never binds.
    const flat = await create('--plan', 'enterprise', '--per-minute', '20', '--per-day', '20');
    assert.deepEqual(flat.limits, { perMinute: 20, perDay: 20 });
  });

  const wrong: [string, string[], RegExp][] = [
    ['no plan', ['create'], /--plan must be one of free, pro, business, enterprise/],
    ['an unknown plan', ['create', '--plan', 'gold'], /--plan must be one of/],
    ['enterprise without limits', ['create', '--plan', 'enterprise'], /need both a per-minute and a per-day/],
    [
      'enterprise with one limit',
      ['create', '--plan', 'enterprise', '--per-minute', '5'],
      /--per-minute and --per-day go together/,
    ],
    [
      'limits on another plan',
      ['create', '--plan', 'pro', '--per-minute', '5', '--per-day', '9'],
      /custom limits are for enterprise keys only/,
    ],
    [
      'a limit that is not a whole number',
      ['create', '--plan', 'enterprise', '--per-minute', '1.5', '--per-day', '9'],
      /--per-minute must be a positive whole number \(got 1\.5\)/,
    ],
    [
      'a day limit below the minute limit',
      ['create', '--plan', 'enterprise', '--per-minute', '100', '--per-day', '10'],
      /the per-day limit \(10\) must be at least the per-minute limit \(100\)/,
    ],
    ['an unknown flag', ['create', '--plan', 'free', '--colour', 'red'], /unknown option --colour/],
    ['an empty name', ['create', '--plan', 'free', '--name', ' '], /name must be 1 to 100 characters/],
    [
      'a name with a newline',
      ['create', '--plan', 'free', '--name', 'ok\nforged line'],
      /control characters/,
    ],
    [
      'a name with an escape sequence',
      ['create', '--plan', 'free', '--name', '\u001b[2J\u001b[31mred'],
      /control characters/,
    ],
    [
      'a name with a bidi override',
      ['create', '--plan', 'free', '--name', 'abc\u202edcba'],
      /control characters/,
    ],
    ['revoke without an id', ['revoke'], /keys revoke takes one key id/],
    ['an unknown action', ['rotate'], /unknown keys action: rotate/],
    ['no action', [], /keys needs an action/],
  ];
  for (const [label, args, message] of wrong) {
    test(`wrong arguments (${label}): one line, the problem and where the usage is, exit 2`, async () => {
      const before = (await runCli(['keys', 'list', '--json'], env)).stdout;
      const result = await runCli(['keys', ...args], env);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.match(result.stderr, /^petstore: [^\n]+ \(see 'petstore keys --help'\)\n$/);
      assert.equal(result.stdout, '');
      assert.equal((await runCli(['keys', 'list', '--json'], env)).stdout, before, 'nothing was stored');
    });
  }

  test('names stored before the rule are listed with their control characters escaped', async () => {
    const created = await create('--plan', 'free', '--name', 'plain');
    const db = new Sqlite(path.join(dir, 'keys.db'));
    try {
      db.prepare('UPDATE api_keys SET name = ? WHERE id = ?').run(
        'evil\n\u001b[2Jline\u0085\u202eend\u2028',
        created.id,
      );
    } finally {
      db.close();
    }
    const human = await runCli(['keys', 'list'], env);
    const line = human.stdout.split('\n').find((entry) => entry.startsWith(created.id as string)) ?? '';
    assert.match(line, /"evil\\u\{a\}\\u\{1b\}\[2Jline\\u\{85\}\\u\{202e\}end\\u\{2028\}"/);
    // Nothing a terminal would act on, but the newlines that end the lines.
    const unprintable = /(?!\n)[\p{Cc}\u2028\u202e]/u;
    assert.doesNotMatch(human.stdout, unprintable);
    const json = await runCli(['keys', 'list', '--json'], env);
    assert.doesNotMatch(json.stdout, unprintable);
    const listed = (JSON.parse(json.stdout) as { keys: { id: string; name: string }[] }).keys;
    assert.equal(
      listed.find((key) => key.id === created.id)?.name,
      'evil\n\u001b[2Jline\u0085\u202eend\u2028',
      'the JSON still says exactly what is stored',
    );
  });

  test('list shows prefixes, never keys', async () => {
    // Keys of its own, whatever ran before.
    await create('--plan', 'free', '--name', 'listed one');
    await create('--plan', 'pro', '--name', 'listed two');
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
    // Keys of its own, one used on the running server so that the log has seen it, whatever ran before.
    for (const plan of ['free', 'pro', 'business']) await create('--plan', plan);
    await waitForStatus(issued.at(-1) as string, 200, 5_000);
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
    const { root, cli } = packageCopy(dir);
    const first = await spawnServer({ DATABASE_URL: '' }, { cwd: dir, cli });
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
      readdirSync(path.join(root, 'data')).includes('petstore.db'),
      'the default file is data/petstore.db beside the package',
    );

    const second = await spawnServer({ DATABASE_URL: '' }, { cwd: dir, cli });
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

describe('keys list shows bans', () => {
  test('a banned key is listed as banned until the ban ends; unban lists it active again', async (t) => {
    const server = await startTestServer(
      { LOG_LEVEL: 'silent' },
      { configFile: { ban: { after: 2, durationSeconds: 600 } } },
    );
    t.after(() => server.close());
    const env = { DATABASE_URL: server.env.DATABASE_URL as string };
    const { id, key } = await server.createKey({ plan: 'enterprise', limits: { perMinute: 1, perDay: 1 } });
    const headers = { authorization: `Bearer ${key}` };
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await server.call('/v1/categories', { headers })).status);
    assert.deepEqual(statuses, [200, 429, 429, 429]);
    const banned = await server.call('/v1/categories', { headers });
    assert.equal((banned.body as { code: string }).code, 'api_key_banned');

    const listed = async () => {
      const json = await runCli(['keys', 'list', '--json'], env);
      assert.equal(json.code, 0, json.stderr);
      const keys = (JSON.parse(json.stdout) as { keys: Record<string, unknown>[] }).keys;
      return keys.find((entry) => entry.id === id) as { state: string; bannedUntil: string | null };
    };
    // The ban is recorded beside the key as it starts, without holding up the answer: wait for it.
    let entry = await listed();
    for (let tries = 0; entry.state !== 'banned' && tries < 20; tries += 1) entry = await listed();
    assert.equal(entry.state, 'banned');
    const left = Date.parse(entry.bannedUntil ?? '') - Date.now();
    assert.ok(left > 590_000 && left <= 600_000, `banned for 10 minutes (${left} ms left)`);
    const human = await runCli(['keys', 'list'], env);
    assert.match(human.stdout, new RegExp(`^${id} .* banned until ${entry.bannedUntil}$`, 'm'));

    assert.equal((await runCli(['keys', 'unban', id], env)).code, 0);
    entry = await listed();
    assert.equal(entry.state, 'active');
    assert.equal(entry.bannedUntil, null);
  });
});
