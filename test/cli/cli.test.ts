import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import pg from 'pg';
import { API_VERSION } from '../../src/contract/index.js';
import { createTestDatabase, POSTGRES_ADMIN_URL, REDIS_URL } from '../support/backends.js';
import { CLI, freePort, packageCopy, runCli, spawnServer } from '../support/process.js';
import { request, tempDir } from '../support/server.js';

const KEY = /ps_live_[0-9A-Za-z]{32}/g;

describe('petstore: version, help and wrong arguments', () => {
  test("--version prints the version, which is the API document's and the newest in the changelog", async () => {
    const { version } = JSON.parse(
      readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    // One version story: a release of the service is a release of its API.
    assert.equal(version, API_VERSION, 'package.json and the document say the same version');
    const changelog = readFileSync(new URL('../../../CHANGELOG.md', import.meta.url), 'utf8');
    assert.equal(/^## (\S+)/m.exec(changelog)?.[1], version, 'the newest changelog entry is this version');
    for (const flag of ['--version', '-v', 'version']) {
      const result = await runCli([flag], {});
      assert.equal(result.code, 0);
      assert.equal(result.stdout, `petstore ${version}\n`);
    }
  });

  test('a reader that closes the pipe early (petstore config | head -1) ends the command quietly', async () => {
    for (const args of [['config'], ['--help'], ['keys', '--help']]) {
      const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      // Closed before the command writes a byte: its first write meets EPIPE.
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      const [code] = await once(child, 'exit');
      assert.equal(stderr, '', `${args.join(' ')}: nothing on stderr`);
      assert.equal(code, 0, args.join(' '));
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
    const server = await spawnServer({ DATABASE_URL: '', PETSTORE_DATA_DIR: '' }, { cwd: elsewhere, cli });
    let first: string;
    try {
      first = server.firstKey() as string;
      assert.match(first, KEY);
      assert.equal(server.dataDir, path.join(root, 'data'), 'the first key is in the default data directory');
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
    const server = await spawnServer({
      DATABASE_URL: `sqlite:${path.join(dir, 'p.db')}`,
      PETSTORE_DATA_DIR: dir,
    });
    try {
      // Not on stdout, among the log lines that shippers keep: in a file only this user reads, which stderr
      // names, named after the database (first-api-key.txt is the default database's).
      assert.doesNotMatch(server.output.join('\n'), KEY);
      const file = path.join(dir, 'first-api-key.p.txt');
      assert.ok(
        server.output.some((line) => line.includes(`it is in ${file} (readable by this user only)`)),
        server.output.join('\n'),
      );
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.match(readFileSync(file, 'utf8'), /will not be shown again/);
      const response = await request(`${server.url}/v1/categories`, {
        headers: { authorization: `Bearer ${server.firstKey()}` },
      });
      assert.equal(response.status, 200);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  test('in a terminal, the key is shown on it (stderr), and no file is written', async (t) => {
    const { dir, remove } = tempDir('petstore-first-tty-');
    t.after(remove);
    // `script` runs the server on a pseudo-terminal, as a person at a shell would.
    const server = await spawnServer(
      { DATABASE_URL: `sqlite:${path.join(dir, 'p.db')}`, PETSTORE_DATA_DIR: dir },
      { command: ['script', '-qfec', `${process.execPath} ${CLI} serve`, '/dev/null'] },
    );
    const serving = server.output.find((line) => line.includes('"msg":"serving"')) as string;
    const { pid } = JSON.parse(serving.slice(serving.indexOf('{'))) as { pid: number };
    t.after(() => process.kill(pid, 'SIGKILL'));
    const keys = server.output.join('\n').match(KEY) ?? [];
    assert.equal(keys.length, 1, server.output.join('\n'));
    assert.ok(server.output.some((line) => line.includes('will not be shown again')));
    assert.equal(existsSync(path.join(dir, 'first-api-key.txt')), false);
    const response = await request(`${server.url}/v1/categories`, {
      headers: { authorization: `Bearer ${keys[0]}` },
    });
    assert.equal(response.status, 200);
  });

  test('two instances starting at once on a fresh PostgreSQL database: exactly one key', async (t) => {
    const database = await createTestDatabase();
    t.after(database.drop);
    const env = { DATABASE_URL: database.url };
    const servers = await Promise.all([spawnServer(env), spawnServer(env)]);
    try {
      const made = servers.flatMap((server) => server.firstKey() ?? []);
      assert.equal(made.length, 1, 'one instance created it, the other found it');
      const listed = await runCli(['keys', 'list', '--json'], env);
      assert.equal((JSON.parse(listed.stdout) as { keys: unknown[] }).keys.length, 1);
    } finally {
      for (const server of servers) server.child.kill('SIGTERM');
      await Promise.all(servers.map((server) => server.exited));
    }
  });
});

describe('DATABASE_URL: a URL without a database is refused, and what fails to open is said in one line', () => {
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  /** A PostgreSQL URL on this machine's server with the given user, password and database. */
  const local = (user: string, database: string, password = '') => {
    const url = new URL(POSTGRES_ADMIN_URL);
    url.username = user;
    url.password = password;
    url.pathname = database === '' ? '/' : `/${database}`;
    return url.toString();
  };

  test('each problem is one line naming DATABASE_URL, with its password hidden, and what to check', async () => {
    const closed = await freePort();
    const cases: [string, RegExp][] = [
      [
        local('postgres', ''),
        /^Invalid configuration: DATABASE_URL names no database \(it ends at [^)]+\): add its name after the host, as postgres:\/\/user@host:5432\/petstore\n$/,
      ],
      [
        `postgres://postgres:s3cret@127.0.0.1:${closed}/petstore`,
        new RegExp(
          `^petstore: could not open DATABASE_URL postgres://postgres:\\*\\*\\*@127\\.0\\.0\\.1:${closed}/petstore: nothing accepts connections at 127\\.0\\.0\\.1:${closed}: check that PostgreSQL runs there`,
        ),
      ],
      [
        'postgres://postgres@no-such-host.invalid:5432/petstore',
        /^petstore: could not open DATABASE_URL postgres:\/\/postgres@no-such-host\.invalid:5432\/petstore: the host no-such-host\.invalid was not found: check its name\n$/,
      ],
      [
        local('no_such_role_zz', 'petstore'),
        /^petstore: could not open DATABASE_URL .*: PostgreSQL refused no_such_role_zz: role "no_such_role_zz" does not exist; check the user in DATABASE_URL and pg_hba\.conf\n$/,
      ],
      [
        local('postgres', 'no_such_database_zz', 'hunter2'),
        /^petstore: could not open DATABASE_URL postgres:\/\/postgres:\*\*\*@.*\/no_such_database_zz: the database no_such_database_zz does not exist at .*: create it with 'petstore migrate' \(or createdb no_such_database_zz\)\n$/,
      ],
    ];
    for (const [url, expected] of cases) {
      const result = await runCli(['keys', 'list'], { DATABASE_URL: url });
      assert.equal(result.code, 1, url);
      assert.match(result.stderr, expected);
      assert.doesNotMatch(result.stderr, /s3cret|hunter2|\n.*\n/, 'no password, one line');
    }
    const served = await runCli(['serve'], {
      DATABASE_URL: local('postgres', 'no_such_database_zz'),
      PORT: '0',
    });
    assert.equal(served.code, 1, 'a server never creates a PostgreSQL database: a typo would start it empty');
    assert.match(served.stderr, /the database no_such_database_zz does not exist/);
  });

  test('migrate creates a PostgreSQL database that does not exist; a user who may not says to createdb', async (t) => {
    const name = `petstore_created_${randomBytes(4).toString('hex')}`;
    const role = `petstore_weak_${randomBytes(4).toString('hex')}`;
    await admin((client) => client.query(`CREATE ROLE ${role} LOGIN`));
    t.after(() =>
      admin(async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await client.query(`DROP ROLE IF EXISTS ${role}`);
      }),
    );
    const refused = await runCli(['migrate'], { DATABASE_URL: local(role, name) });
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      new RegExp(
        `the database ${name} does not exist at .*, and creating it failed \\(permission denied to create database\\): create it with createdb -h \\S+ -p \\d+ -U ${role} ${name}\\n$`,
      ),
    );
    const created = await runCli(['migrate'], { DATABASE_URL: local('postgres', name) });
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /^Applied postgres migrations/);
    const listed = await runCli(['keys', 'list'], { DATABASE_URL: local('postgres', name) });
    assert.equal(listed.code, 0, listed.stderr);
  });

  test('the start line names the database and the Redis in use, never a password', async (t) => {
    const database = await createTestDatabase();
    t.after(database.drop);
    const url = new URL(database.url);
    url.password = 'hunter2';
    const server = await spawnServer({ DATABASE_URL: url.toString(), REDIS_URL });
    t.after(async () => {
      server.child.kill('SIGTERM');
      await server.exited;
    });
    const serving = JSON.parse(server.output.find((line) => line.includes('"msg":"serving"')) as string);
    url.password = '***';
    assert.deepEqual(
      { storage: serving.storage, database: serving.database, limits: serving.limits },
      { storage: 'postgres', database: url.toString(), limits: `${new URL(REDIS_URL).toString()}` },
    );
    assert.doesNotMatch(server.output.join('\n'), /hunter2/);
  });
});
