import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { KEY_PATTERN } from '../../src/keys/index.js';
import { Sqlite } from '../../src/storage/index.js';
import { eventually } from '../support/assertions.js';
import { createTestDatabase, queryPostgres } from '../support/backends.js';
import { CLI, packageCopy, runCli, type ServerProcess, spawnServer } from '../support/process.js';
import { request, startTestServer, tempDir } from '../support/server.js';

describe('petstore keys', () => {
  const { dir, remove } = tempDir();
  const env = { DATABASE_URL: `sqlite:${path.join(dir, 'keys.db')}`, LOG_LEVEL: 'debug' };
  const issued: string[] = [];
  let server: ServerProcess;

  /** Every stored key row as it is, read from the file in this process (a `keys list` costs a process). */
  function storedKeys(): unknown[] {
    const db = new Sqlite(path.join(dir, 'keys.db'), { readonly: true, fileMustExist: true });
    try {
      return db.prepare('SELECT * FROM api_keys ORDER BY id').all();
    } finally {
      db.close();
    }
  }

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
      /control or invisible characters/,
    ],
    [
      'a name with an escape sequence',
      ['create', '--plan', 'free', '--name', '\u001b[2J\u001b[31mred'],
      /control or invisible characters/,
    ],
    [
      'a name with a bidi override',
      ['create', '--plan', 'free', '--name', 'abc\u202edcba'],
      /control or invisible characters/,
    ],
    [
      'a name with a zero-width space',
      ['create', '--plan', 'free', '--name', 'pay\u200bments'],
      /control or invisible characters/,
    ],
    [
      'an unknown scope',
      ['create', '--plan', 'free', '--scopes', 'pets:fly'],
      /--scopes takes a comma-separated/,
    ],
    ['no scope', ['create', '--plan', 'free', '--scopes', ''], /--scopes/],
    [
      'a bad duration',
      ['create', '--plan', 'free', '--expires-in', '5x'],
      /--expires-in takes a whole number/,
    ],
    [
      'two expiries',
      ['create', '--plan', 'free', '--expires-in', '1d', '--expires-at', '2030-01-01T00:00:00Z'],
      /--expires-in and --expires-at are one or the other/,
    ],
    [
      'an expiry in the past',
      ['create', '--plan', 'free', '--expires-at', '2020-01-01T00:00:00Z'],
      /must be in the future/,
    ],
    [
      'an expiry that is no date',
      ['create', '--plan', 'free', '--expires-at', 'soon'],
      /expiresAt \(the expiry\) must be a date and time that exists/,
    ],
    [
      'an expiry on a day that does not exist',
      ['create', '--plan', 'free', '--expires-at', '2027-02-30T00:00:00Z'],
      /expiresAt \(the expiry\) must be a date and time that exists, such as 2027-01-31T00:00:00Z \(got 2027-02-30T00:00:00Z\)/,
    ],
    [
      'a grace period over 30 days',
      ['rotate', 'key_000000000000', '--grace', '31d'],
      /--grace may be at most 30d/,
    ],
    ['revoke without an id', ['revoke'], /keys revoke takes one key id/],
    ['an unknown action', ['frobnicate'], /unknown keys action: frobnicate/],
    ['no action', [], /keys needs an action/],
  ];
  for (const [label, args, message] of wrong) {
    test(`wrong arguments (${label}): one line, the problem and where the usage is, exit 2`, async () => {
      const before = storedKeys();
      const result = await runCli(['keys', ...args], env);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.match(result.stderr, /^petstore: [^\n]+ \(see 'petstore keys --help'\)\n$/);
      assert.equal(result.stdout, '');
      assert.deepEqual(storedKeys(), before, 'nothing was stored');
    });
  }

  test('names stored before the rule are listed with their control characters escaped', async () => {
    const created = await create('--plan', 'free', '--name', 'plain');
    const db = new Sqlite(path.join(dir, 'keys.db'));
    try {
      db.prepare('UPDATE api_keys SET name = ? WHERE id = ?').run(
        'evil\n\u001b[2Jline\u0085\u202eend\u2028\u200b\u{e0041}',
        created.id,
      );
    } finally {
      db.close();
    }
    const human = await runCli(['keys', 'list'], env);
    const line = human.stdout.split('\n').find((entry) => entry.startsWith(created.id as string)) ?? '';
    assert.match(
      line,
      /"evil\\u\{a\}\\u\{1b\}\[2Jline\\u\{85\}\\u\{202e\}end\\u\{2028\}\\u\{200b\}\\u\{e0041\}"/,
    );
    // Nothing a terminal would act on or hide, but the newlines that end the lines.
    const unprintable = /(?!\n)[\p{Cc}\p{Cf}\u2028]/u;
    assert.doesNotMatch(human.stdout, unprintable);
    const json = await runCli(['keys', 'list', '--json'], env);
    assert.doesNotMatch(json.stdout, unprintable);
    const listed = (JSON.parse(json.stdout) as { keys: { id: string; name: string }[] }).keys;
    assert.equal(
      listed.find((key) => key.id === created.id)?.name,
      'evil\n\u001b[2Jline\u0085\u202eend\u2028\u200b\u{e0041}',
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
    assert.equal(revoke.stdout, `Revoked ${created.id}. Servers refuse it within 5 seconds.\n`);
    await waitForStatus(key, 401, 5_000);
    const again = await runCli(['keys', 'revoke', created.id as string], env);
    assert.equal(again.code, 0, 'revoking is idempotent');
    assert.match(
      again.stdout,
      new RegExp(`^${created.id} was already revoked at \\S+; nothing changed\\.\\n$`),
    );
  });

  test('expire ends a key now; list shows its last use and, once rotated, its successor', async () => {
    const created = await create('--plan', 'pro', '--name', 'to end');
    const key = created.key as string;
    await waitForStatus(key, 200, 5_000);
    const rotated = await runCli(['keys', 'rotate', created.id as string, '--grace', '1h', '--json'], env);
    const successor = JSON.parse(rotated.stdout) as { id: string; key: string };
    issued.push(successor.key);
    const expired = await runCli(['keys', 'expire', created.id as string], env);
    assert.equal(expired.code, 0, expired.stderr);
    assert.match(
      expired.stdout,
      new RegExp(`^Expired ${created.id} at \\S+\\. Servers refuse it from now on`),
    );
    await waitForStatus(key, 401, 5_000);
    const lineOf = (listed: string, id: string) =>
      listed.split('\n').find((entry) => entry.startsWith(id)) ?? '';
    // The server adds its use to storage every 2 s: wait for the list to show it.
    const listed = await eventually('keys list shows the last use', async () => {
      const { stdout } = await runCli(['keys', 'list'], env);
      return /last used 20/.test(lineOf(stdout, created.id as string)) && stdout;
    });
    assert.match(
      lineOf(listed, created.id as string),
      new RegExp(`expired \\S+  replaced by ${successor.id}  last used 20\\d\\d-`),
    );
    assert.match(lineOf(listed, successor.id), / {2}last used never/);
  });

  test('create --scopes --expires-in: the key has those scopes only, and says when it ends', async () => {
    const before = Date.now();
    const created = await create('--plan', 'free', '--scopes', 'pets:read,pets:write', '--expires-in', '2h');
    assert.deepEqual(created.scopes, ['pets:read', 'pets:write']);
    const expiresAt = Date.parse(created.expiresAt as string);
    assert.ok(expiresAt >= before + 7_200_000 && expiresAt <= Date.now() + 7_200_000);
    await waitForStatus(created.key as string, 403, 5_000);
    const pets = await request(`${server.url}/v1/pets`, {
      headers: { authorization: `Bearer ${created.key as string}` },
    });
    assert.equal(pets.status, 200);
    const shown = await runCli(['keys', 'show', created.id as string], env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`active until ${created.expiresAt as string}`));
    assert.match(shown.stdout, /scopes pets:read,pets:write/);
  });

  test('rotate: the new key works at once; --grace keeps the old one until its deadline, 0 stops it', async () => {
    const created = await create('--plan', 'pro', '--name', 'rotated');
    const rotated = await runCli(['keys', 'rotate', created.id as string, '--grace', '1h', '--json'], env);
    assert.equal(rotated.code, 0, rotated.stderr);
    const successor = JSON.parse(rotated.stdout) as Record<string, unknown>;
    issued.push(successor.key as string);
    assert.equal(successor.name, 'rotated');
    assert.equal(successor.plan, 'pro');
    await waitForStatus(successor.key as string, 200, 5_000);
    assert.equal(await statusWith(created.key as string), 200, 'the old key works in its grace period');
    const old = JSON.parse(
      (await runCli(['keys', 'show', created.id as string, '--json'], env)).stdout,
    ) as Record<string, unknown>;
    assert.equal(old.replacedBy, successor.id);
    assert.ok(Math.abs(Date.parse(old.expiresAt as string) - (Date.now() + 3_600_000)) < 60_000);

    const again = await runCli(['keys', 'rotate', successor.id as string], env);
    assert.equal(again.code, 0, again.stderr);
    const newest = /\n {2}(ps_live_\w+)\n/.exec(again.stdout)?.[1] as string;
    issued.push(newest);
    assert.match(again.stdout, /is refused from now on|keeps working until/);
    await waitForStatus(successor.key as string, 401, 5_000);
    await waitForStatus(newest, 200, 5_000);
    const twice = await runCli(['keys', 'rotate', created.id as string], env);
    assert.equal(twice.code, 1, 'a key is rotated once');
    assert.equal(
      twice.stderr,
      `petstore: ${created.id} was already rotated: its successor is ${successor.id}; rotate that one instead\n`,
    );
  });

  test('revoke names the keys rotated from it and asks: without a terminal it needs --yes, at one it takes y', async () => {
    const rotate = async (id: string) => {
      const rotated = await runCli(['keys', 'rotate', id, '--grace', '1h', '--json'], env);
      assert.equal(rotated.code, 0, rotated.stderr);
      const successor = JSON.parse(rotated.stdout) as { id: string; key: string };
      issued.push(successor.key);
      return successor;
    };
    const first = await create('--plan', 'free', '--name', 'leaked');
    const second = await rotate(first.id as string);
    const third = await rotate(second.id);
    const refused = await runCli(['keys', 'revoke', first.id as string], env);
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      `petstore: ${first.id} was rotated: revoking it also revokes ${second.id} (leaked), ${third.id} (leaked). Run again with --yes to revoke them all, or 'petstore keys expire ${first.id}' to end only its grace; nothing changed\n`,
    );
    const shown = async (id: string) =>
      JSON.parse((await runCli(['keys', 'show', id, '--json'], env)).stdout) as { state: string };
    assert.equal((await shown(third.id)).state, 'active', 'nothing changed');

    // At a terminal (a pseudo-terminal that script(1) gives it), the question is asked, and y answers it.
    const asked = spawn(
      'script',
      ['-qec', `'${process.execPath}' '${CLI}' keys revoke ${first.id}`, '/dev/null'],
      { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let seen = '';
    asked.stdout.on('data', (chunk) => {
      seen += chunk;
      if (seen.includes('[y/N]')) asked.stdin.end('y\n');
    });
    // 'close': once its output is read to the end, which 'exit' may come before.
    const [code] = await once(asked, 'close');
    assert.equal(code, 0, seen);
    assert.match(seen, /Revoke all 3\? \[y\/N\]/);
    assert.match(
      seen,
      new RegExp(`Revoked ${first.id} and the keys rotated from it, ${second.id}, ${third.id}`),
    );
    for (const id of [first.id as string, second.id, third.id])
      assert.equal((await shown(id)).state, 'revoked');
    // All are revoked: again is nothing to do.
    const again = await runCli(['keys', 'revoke', first.id as string, '--yes'], env);
    assert.match(again.stdout, /was already revoked/);
  });

  test('admin-tokens: create prints the token once, list shows prefixes, revoke takes effect within 5 s', async () => {
    const created = await runCli(['admin-tokens', 'create', '--name', 'dashboard', '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    const { id, token } = JSON.parse(created.stdout) as { id: string; token: string };
    issued.push(token);
    assert.match(token, /^ps_admin_/);
    const admin = () =>
      request(`${server.url}/admin/v1/keys`, { headers: { authorization: `Bearer ${token}` } });
    const deadline = Date.now() + 5_000;
    while ((await admin()).status !== 200) {
      assert.ok(Date.now() < deadline, 'the server accepts a new token within 5 s');
      await sleep(100);
    }
    const listed = await runCli(['admin-tokens', 'list'], env);
    assert.match(listed.stdout, new RegExp(`${id}  ${token.slice(0, 13)}…  "dashboard"`));
    assert.ok(!listed.stdout.includes(token));
    const revoke = await runCli(['admin-tokens', 'revoke', id], env);
    assert.equal(revoke.code, 0, revoke.stderr);
    while ((await admin()).status !== 401) {
      assert.ok(Date.now() < deadline + 5_000, 'the server refuses a revoked token within 5 s');
      await sleep(100);
    }
    const unknown = await runCli(['admin-tokens', 'revoke', 'adm_000000000000'], env);
    assert.equal(unknown.code, 1);
  });

  test('audit list: what the CLI changed, by cli, with --target, --actor, --actor-kind, --after, --limit and --json', async () => {
    const created = await create('--plan', 'free', '--name', 'audited');
    assert.equal((await runCli(['keys', 'revoke', created.id as string], env)).code, 0);
    const json = await runCli(['audit', 'list', '--target', created.id as string, '--json'], env);
    assert.equal(json.code, 0, json.stderr);
    const { events } = JSON.parse(json.stdout) as {
      events: { id: number; actor: string; action: string; target: string }[];
    };
    assert.deepEqual(
      events.map((event) => [event.actor, event.action, event.target]),
      [
        ['cli', 'key.created', created.id],
        ['cli', 'key.revoked', created.id],
      ],
    );
    const after = await runCli(
      ['audit', 'list', '--target', created.id as string, '--after', String(events[0]?.id), '--json'],
      env,
    );
    assert.deepEqual(
      (JSON.parse(after.stdout) as { events: { id: number }[] }).events.map((event) => event.id),
      [events[1]?.id],
    );
    const byKind = await runCli(['audit', 'list', '--actor-kind', 'cli', '--actor', 'cli', '--json'], env);
    const cliEvents = (JSON.parse(byKind.stdout) as { events: { actor: string; target: string }[] }).events;
    assert.ok(cliEvents.some((event) => event.target === created.id));
    assert.ok(cliEvents.every((event) => event.actor === 'cli'));
    const tokens = await runCli(['audit', 'list', '--actor-kind', 'token', '--json'], env);
    assert.ok(
      (JSON.parse(tokens.stdout) as { events: { actor: string }[] }).events.every((event) =>
        event.actor.startsWith('adm_'),
      ),
    );
    const badKind = await runCli(['audit', 'list', '--actor-kind', 'robot'], env);
    assert.equal(badKind.code, 2);
    assert.match(badKind.stderr, /--actor-kind must be one of token, person, key, cli, system \(got robot\)/);
    const human = await runCli(['audit', 'list', '--limit', '1000'], env);
    assert.match(human.stdout, new RegExp(`  cli  key\\.revoked  ${created.id as string}`));
    for (const key of issued) assert.ok(!human.stdout.includes(key) && !json.stdout.includes(key));
    // The admin API's bounds: 1 to 1000.
    for (const limit of ['0', '1001']) {
      const bad = await runCli(['audit', 'list', '--limit', limit], env);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, new RegExp(`--limit must be 1 to 1000 \\(got ${limit}\\)`));
    }
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
    const first = await spawnServer({ DATABASE_URL: '', PETSTORE_DATA_DIR: '' }, { cwd: dir, cli });
    let key: string;
    try {
      assert.doesNotMatch(first.output.join('\n'), /ps_live_/, 'never among the log lines');
      key = first.firstKey() as string;
      assert.match(key, /^ps_live_[0-9A-Za-z]{32}$/);
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

    const second = await spawnServer({ DATABASE_URL: '', PETSTORE_DATA_DIR: '' }, { cwd: dir, cli });
    try {
      assert.doesNotMatch(second.output.join('\n'), /ps_live_|first API key/, 'no second first key');
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
    const beforeBan = Date.now();
    for (let i = 0; i < 4; i += 1) statuses.push((await server.call('/v1/categories', { headers })).status);
    assert.deepEqual(statuses, [200, 429, 429, 429]);
    const banned = await server.call('/v1/categories', { headers });
    const afterBan = Date.now();
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
    // Ten minutes from the moment it began, whenever the listing runs (the CLI runs above take their time
    // on a slow machine): a second of slack either side for the store's clock (Redis TIME or this one).
    const until = Date.parse(entry.bannedUntil ?? '');
    assert.ok(
      until >= beforeBan + 600_000 - 1_000 && until <= afterBan + 600_000 + 1_000,
      `banned for 10 minutes: until ${entry.bannedUntil}, banned between ${new Date(beforeBan).toISOString()} and ${new Date(afterBan).toISOString()}`,
    );
    const human = await runCli(['keys', 'list'], env);
    assert.match(human.stdout, new RegExp(`^${id} .* banned until ${entry.bannedUntil}  last used `, 'm'));

    assert.equal((await runCli(['keys', 'unban', id], env)).code, 0);
    entry = await listed();
    assert.equal(entry.state, 'active');
    assert.equal(entry.bannedUntil, null);
  });
});

describe('keys revoke and admin-tokens revoke say "Revoked" only once the row reads revoked', () => {
  /** A migrated database of each backend, and a way to run SQL on it beside the CLI. */
  const backends = {
    async sqlite() {
      const { dir, remove } = tempDir();
      const file = path.join(dir, 'p.db');
      return {
        env: { DATABASE_URL: `sqlite:${file}` },
        async exec(sql: string) {
          const db = new Sqlite(file);
          try {
            db.exec(sql);
          } finally {
            db.close();
          }
        },
        // A trigger an edited backup could carry: it undoes the revoke right after it.
        undo: `
          CREATE TRIGGER keep_key AFTER UPDATE OF revoked_at ON api_keys WHEN NEW.revoked_at IS NOT NULL
            BEGIN UPDATE api_keys SET revoked_at = NULL WHERE id = NEW.id; END;
          CREATE TRIGGER keep_admin AFTER UPDATE OF revoked_at ON admin_tokens WHEN NEW.revoked_at IS NOT NULL
            BEGIN UPDATE admin_tokens SET revoked_at = NULL WHERE id = NEW.id; END;`,
        redo: 'DROP TRIGGER keep_key; DROP TRIGGER keep_admin;',
        drop: async () => remove(),
      };
    },
    async postgres() {
      const database = await createTestDatabase();
      return {
        env: { DATABASE_URL: database.url },
        async exec(sql: string) {
          await queryPostgres(database.url, sql);
        },
        undo: `
          CREATE FUNCTION keep_active() RETURNS trigger LANGUAGE plpgsql
            AS $$ BEGIN NEW.revoked_at := NULL; RETURN NEW; END $$;
          CREATE TRIGGER keep_key BEFORE UPDATE OF revoked_at ON api_keys
            FOR EACH ROW EXECUTE FUNCTION keep_active();
          CREATE TRIGGER keep_admin BEFORE UPDATE OF revoked_at ON admin_tokens
            FOR EACH ROW EXECUTE FUNCTION keep_active();`,
        redo: 'DROP TRIGGER keep_key ON api_keys; DROP TRIGGER keep_admin ON admin_tokens;',
        drop: database.drop,
      };
    },
  };

  for (const [name, make] of Object.entries(backends)) {
    test(`${name}: a revoke that the database undoes fails in one line, exit 1, and the row stays active`, async (t) => {
      const made = await make();
      t.after(made.drop);
      const { env } = made;
      assert.equal((await runCli(['migrate'], env)).code, 0);
      const key = JSON.parse((await runCli(['keys', 'create', '--plan', 'free', '--json'], env)).stdout) as {
        id: string;
      };
      const token = JSON.parse((await runCli(['admin-tokens', 'create', '--json'], env)).stdout) as {
        id: string;
      };
      await made.exec(made.undo);

      for (const [command, id] of [
        ['keys', key.id],
        ['admin-tokens', token.id],
      ] as const) {
        const refused = await runCli([command, 'revoke', id], env);
        assert.equal(refused.code, 1, refused.stdout);
        assert.equal(refused.stdout, '', 'it does not say "Revoked"');
        assert.match(
          refused.stderr,
          new RegExp(
            `^petstore: ${id} is not revoked: it reads active again after the revoke committed \\(a trigger in the database, .*\\); it still works: .*\\n$`,
          ),
        );
      }
      const shown = JSON.parse((await runCli(['keys', 'show', key.id, '--json'], env)).stdout) as {
        state: string;
      };
      assert.equal(shown.state, 'active');
      const tokens = JSON.parse((await runCli(['admin-tokens', 'list', '--json'], env)).stdout) as {
        tokens: { id: string; revokedAt: string | null }[];
      };
      assert.equal(tokens.tokens.find((listed) => listed.id === token.id)?.revokedAt, null);

      // Once the database keeps the change, both say so.
      await made.exec(made.redo);
      for (const [command, id] of [
        ['keys', key.id],
        ['admin-tokens', token.id],
      ] as const) {
        const revoked = await runCli([command, 'revoke', id], env);
        assert.equal(revoked.code, 0, revoked.stderr);
        assert.equal(revoked.stdout, `Revoked ${id}. Servers refuse it within 5 seconds.\n`);
      }
    });
  }
});
