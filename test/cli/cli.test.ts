import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase } from '../support/backends.js';
import { packageCopy, runCli, spawnServer } from '../support/process.js';
import { request, tempDir } from '../support/server.js';

const KEY = /ps_live_[0-9A-Za-z]{32}/g;

describe('petstore: version, help and wrong arguments', () => {
  test('--version prints the version of the package', async () => {
    const { version } = JSON.parse(
      readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    for (const flag of ['--version', '-v', 'version']) {
      const result = await runCli([flag], {});
      assert.equal(result.code, 0);
      assert.equal(result.stdout, `petstore ${version}\n`);
    }
  });

  test("each command has its own --help, and 'help <command>' shows it", async () => {
    for (const [args, shown] of [
      [['--help'], /^Usage: petstore <command>/],
      [['keys', '--help'], /petstore keys create --plan/],
      [['keys', 'create', '--help'], /petstore keys create --plan/],
      [['help', 'domains'], /petstore domains verify <domain>/],
      [['migrate', '-h'], /^Usage: petstore migrate/],
    ] as const) {
      const result = await runCli([...args], {});
      assert.equal(result.code, 0, args.join(' '));
      assert.match(result.stdout, shown, args.join(' '));
    }
  });

  const wrong: [string, string[], string][] = [
    ['an unknown command', ['frobnicate'], "petstore: unknown command: frobnicate (see 'petstore --help')"],
    [
      'a repeated option',
      ['keys', 'create', '--plan', 'free', '--plan', 'pro'],
      "petstore: --plan is given more than once (see 'petstore keys --help')",
    ],
    [
      'a negative limit',
      ['keys', 'create', '--plan', 'enterprise', '--per-minute', '-5', '--per-day', '10'],
      "petstore: --per-minute must be a positive whole number (got -5) (see 'petstore keys --help')",
    ],
    [
      'an option without its value',
      ['keys', 'create', '--plan'],
      "petstore: --plan needs a value (see 'petstore keys --help')",
    ],
    [
      'a value given to a flag',
      ['keys', 'list', '--json=yes'],
      "petstore: --json takes no value (see 'petstore keys --help')",
    ],
    [
      'an unknown option',
      ['keys', 'create', '--plan', 'free', '--colour', 'red'],
      "petstore: unknown option --colour (see 'petstore keys --help')",
    ],
    [
      'a repeated domains option',
      ['domains', 'verify', 'docs.example.test', '--target', 'a.example.test', '--target', 'b.example.test'],
      "petstore: --target is given more than once (see 'petstore domains --help')",
    ],
  ];
  for (const [label, args, message] of wrong) {
    test(`${label}: one line naming the problem and where the usage is, exit 2`, async () => {
      const result = await runCli(args, {});
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stderr, `${message}\n`);
      assert.equal(result.stdout, '');
    });
  }
});

describe('commands other than serve and migrate never create a database', () => {
  test('the default database is beside the package, wherever the command runs; a missing one is refused', async (t) => {
    const { dir, remove } = tempDir('petstore-default-');
    t.after(remove);
    const { root, cli } = packageCopy(dir);
    const elsewhere = path.join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    const expected = path.join(root, 'data', 'petstore.db');

    for (const args of [
      ['keys', 'list'],
      ['keys', 'create', '--plan', 'free'],
      ['keys', 'revoke', 'key_x'],
    ]) {
      const refused = await runCli(args, { DATABASE_URL: '' }, { cwd: elsewhere, cli });
      assert.equal(refused.code, 1, args.join(' '));
      assert.match(refused.stderr, new RegExp(`no database at ${expected.replaceAll('.', '\\.')}`));
      assert.match(refused.stderr, /DATABASE_URL/, 'it says how to point elsewhere');
      assert.equal(refused.stdout, '');
    }
    assert.equal(existsSync(path.join(root, 'data')), false, 'nothing created beside the package');
    assert.equal(existsSync(path.join(elsewhere, 'data')), false, 'nothing created where it ran');

    // The server, started from anywhere, makes the database there, and the CLI run elsewhere finds it.
    const server = await spawnServer({ DATABASE_URL: '' }, { cwd: elsewhere, cli });
    let first: string;
    try {
      const keys = server.output.join('\n').match(KEY) ?? [];
      assert.equal(keys.length, 1);
      first = keys[0] as string;
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    assert.ok(existsSync(expected), 'the default file is data/petstore.db beside the package');
    assert.equal(existsSync(path.join(elsewhere, 'data')), false);
    const listed = await runCli(['keys', 'list', '--json'], { DATABASE_URL: '' }, { cwd: dir, cli });
    assert.equal(listed.code, 0, listed.stderr);
    const { keys } = JSON.parse(listed.stdout) as { keys: { prefix: string }[] };
    assert.deepEqual(
      keys.map((key) => key.prefix),
      [first.slice(0, 12)],
    );
  });

  test('an explicit SQLite path that does not exist is refused, and not created', async (t) => {
    const { dir, remove } = tempDir('petstore-missing-');
    t.after(remove);
    const file = path.join(dir, 'nowhere', 'petstore.db');
    const result = await runCli(['keys', 'list'], { DATABASE_URL: `sqlite:${file}` });
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`no database at ${file.replaceAll('.', '\\.')}\\. `));
    assert.equal(existsSync(path.join(dir, 'nowhere')), false);
  });

  test('a PostgreSQL database without the schema is refused, and no table is made', async (t) => {
    const database = await createTestDatabase();
    t.after(database.drop);
    const result = await runCli(['keys', 'list'], { DATABASE_URL: database.url });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /holds no Pet Store schema\. .*petstore migrate/);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'",
      );
      assert.equal(rows[0].n, 0);
    } finally {
      await client.end();
    }
  });

  test('migrate creates it; then the key commands work', async (t) => {
    const { dir, remove } = tempDir('petstore-migrate-');
    t.after(remove);
    const env = { DATABASE_URL: `sqlite:${path.join(dir, 'p.db')}` };
    assert.equal((await runCli(['migrate'], env)).code, 0);
    const listed = await runCli(['keys', 'list'], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /No API keys/);
  });
});

describe('the first start of a fresh database prints one key, whatever DATABASE_URL names', () => {
  test('an explicit SQLite file', async (t) => {
    const { dir, remove } = tempDir('petstore-first-');
    t.after(remove);
    const server = await spawnServer({ DATABASE_URL: `sqlite:${path.join(dir, 'p.db')}` });
    try {
      const keys = server.output.join('\n').match(KEY) ?? [];
      assert.equal(keys.length, 1);
      assert.match(server.output.join('\n'), /will not be shown again/);
      const response = await request(`${server.url}/v1/categories`, {
        headers: { authorization: `Bearer ${keys[0]}` },
      });
      assert.equal(response.status, 200);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  test('two instances starting at once on a fresh PostgreSQL database: exactly one key', async (t) => {
    const database = await createTestDatabase();
    t.after(database.drop);
    const env = { DATABASE_URL: database.url };
    const servers = await Promise.all([spawnServer(env), spawnServer(env)]);
    try {
      const printed = servers.flatMap((server) => server.output.join('\n').match(KEY) ?? []);
      assert.equal(printed.length, 1, 'one instance created it, the other found it');
      const listed = await runCli(['keys', 'list', '--json'], env);
      assert.equal((JSON.parse(listed.stdout) as { keys: unknown[] }).keys.length, 1);
    } finally {
      for (const server of servers) server.child.kill('SIGTERM');
      await Promise.all(servers.map((server) => server.exited));
    }
  });
});
