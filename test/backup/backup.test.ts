import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  watch,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { Sqlite } from '../../src/storage/index.js';
import { CRAFTED_SCHEMAS, craftSchema } from '../support/crafted-schemas.js';
import { type PrivateServer, startPrivatePostgres } from '../support/private-servers.js';
import { createUnlimitedKey, runCli, type ServerProcess, spawnServer } from '../support/process.js';
import { request, tempDir } from '../support/server.js';

const run = promisify(execFile);

/** Stops a spawned server: SIGTERM drains it; SIGKILL is a crash that leaves its -wal behind. */
async function stop(server: ServerProcess, signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
  server.child.kill(signal);
  await server.exited;
}

function categoryIds(file: string): number[] {
  const db = new Sqlite(file, { fileMustExist: true });
  try {
    return db.prepare<[], number>('SELECT id FROM categories ORDER BY id').pluck().all();
  } finally {
    db.close();
  }
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

const modeOf = (file: string) => (statSync(file).mode & 0o777).toString(8);

/**
 * Runs the CLI with `args` while recording the mode of every file that appears in `dir`, as first seen
 * (inotify tells at its creation: a file created 0644 and chmodded later is seen 0644), and asserts that it
 * succeeded, that its temporary copy (named from `temporary`) was seen, and that every file was 0600.
 */
async function assertWrittenPrivately(
  dir: string,
  args: string[],
  env: Record<string, string>,
  temporary: string,
): Promise<void> {
  const seen = new Map<string, number>();
  const watcher = watch(dir, (_event, name) => {
    if (name === null || seen.has(name)) return;
    const stat = statSync(path.join(dir, name), { throwIfNoEntry: false });
    if (stat !== undefined) seen.set(name, stat.mode & 0o777);
  });
  const result = await runCli(args, env).finally(() => watcher.close());
  assert.equal(result.code, 0, result.stderr);
  assert.ok(
    [...seen.keys()].some((name) => name.startsWith(temporary)),
    `the temporary copy was seen: ${[...seen.keys()].join(', ')}`,
  );
  for (const [name, mode] of seen) assert.equal(mode.toString(8), '600', name);
}

/** The files of a directory that are neither the database nor named by the test: temporaries left behind. */
function leftovers(dir: string, expected: readonly string[]): string[] {
  // The request log of a server that ran there is the service's own file, never a backup's leftover.
  const kept = [...expected, 'petstore.requests.db'];
  return readdirSync(dir).filter((name) => !kept.some((prefix) => name.startsWith(prefix)));
}

/** Asserts a refusal: exit 1, nothing on stdout, one line on stderr matching `message`. */
function assertRefused(result: { code: number | null; stdout: string; stderr: string }, message: RegExp) {
  assert.equal(result.code, 1, result.stderr);
  assert.equal(result.stdout, '');
  assert.equal(result.stderr.split('\n').length, 2, `one line: ${result.stderr}`);
  assert.match(result.stderr, message);
}

describe('petstore backup and restore (SQLite)', () => {
  const { dir, remove } = tempDir('petstore-backup-');
  const database = path.join(dir, 'live', 'petstore.db');
  const env = { DATABASE_URL: `sqlite:${database}`, PETSTORE_DATA_DIR: path.join(dir, 'live') };
  const backup = path.join(dir, 'during-load.db');
  let key = '';
  let backupIds: number[] = [];
  after(remove);

  test('a backup taken during a create load holds every create acknowledged before it began', async () => {
    key = await createUnlimitedKey(env);
    const token = await runCli(['admin-tokens', 'create', '--name', 'before the backup'], env);
    assert.equal(token.code, 0, token.stderr);
    const server = await spawnServer(env);
    try {
      const acknowledged: { id: number; at: number }[] = [];
      let loading = true;
      const worker = async (index: number) => {
        for (let n = 0; loading; n++) {
          const response = await request(`${server.url}/v1/categories`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ name: `load ${index}.${n}` }),
          });
          assert.equal(response.status, 201, response.text);
          acknowledged.push({ id: (response.body as { id: number }).id, at: performance.now() });
        }
      };
      const workers = Array.from({ length: 16 }, (_, index) => worker(index));
      while (acknowledged.length < 500) await new Promise((resolve) => setTimeout(resolve, 20));
      const began = performance.now();
      const result = await runCli(['backup', backup, '--json'], env);
      const ended = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 100));
      loading = false;
      await Promise.all(workers);
      assert.equal(result.code, 0, result.stderr);
      const report = JSON.parse(result.stdout) as Record<string, unknown>;
      assert.deepEqual(Object.keys(report).sort(), ['bytes', 'file', 'schemaVersion', 'source']);
      assert.equal(report.file, backup);
      assert.equal(report.source, database);
      assert.ok(typeof report.schemaVersion === 'number' && report.schemaVersion >= 1);

      backupIds = categoryIds(backup);
      const inBackup = new Set(backupIds);
      const before = acknowledged.filter((create) => create.at < began);
      const missing = before.filter((create) => !inBackup.has(create.id));
      assert.deepEqual(missing, [], 'every create acknowledged before the backup began is in it');
      const during = acknowledged.filter((create) => create.at >= began && create.at <= ended).length;
      assert.ok(during > 0, 'the server went on acknowledging creates while the backup ran');
      assert.ok(
        backupIds.length < acknowledged.length,
        'creates acknowledged after the backup are not in it',
      );
      // The figures of the run, for the report.
      process.stderr.write(
        `# backup during load: ${before.length} creates before, ${during} during ${Math.round(ended - began)} ms of backup, ${backupIds.length} rows in a ${String(report.bytes)}-byte copy\n`,
      );
      assert.deepEqual(leftovers(dir, ['live', 'during-load.db']), [], 'no temporary file is left');
    } finally {
      await stop(server, 'SIGKILL');
    }
  });

  test('restore refuses while a server holds the database, naming its pid, and changes nothing', async () => {
    const server = await spawnServer(env);
    try {
      const result = await runCli(['restore', backup], env);
      assertRefused(result, new RegExp(`is open in process ${server.child.pid} \\(a running server\\?\\)`));
      const list = await request(`${server.url}/v1/categories`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(list.status, 200);
      assert.ok(
        (list.body as unknown[]).length > backupIds.length,
        'the live database is still the live one',
      );
      assert.deepEqual(leftovers(path.dirname(database), ['petstore.db']), []);
    } finally {
      // A crash, so the stopped service's path keeps a -wal that the restore must not replay.
      await stop(server, 'SIGKILL');
    }
  });

  test('restore into the stopped service’s path: a server started on it serves the backup', async () => {
    const result = await runCli(['restore', backup], env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      /^Restored .+during-load\.db to .+petstore\.db \(\d+ bytes, schema version \d+\): start the service\n$/,
    );
    assert.equal(existsSync(`${database}-wal`), false, 'the old -wal is gone');
    assert.deepEqual(leftovers(path.dirname(database), ['petstore.db']), []);
    const restored = new Sqlite(database, { readonly: true });
    try {
      const maker = restored
        .prepare<[], string | null>("SELECT created_by FROM admin_tokens WHERE name = 'before the backup'")
        .pluck()
        .get();
      assert.equal(maker, 'cli', 'who made each admin token comes with the backup');
    } finally {
      restored.close();
    }
    const server = await spawnServer(env);
    try {
      const list = await request(`${server.url}/v1/categories`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(list.status, 200, 'the key made before the backup works');
      assert.deepEqual(
        (list.body as { id: number }[]).map((category) => category.id),
        backupIds,
      );
      const created = await request(`${server.url}/v1/categories`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'after the restore' }),
      });
      assert.equal(created.status, 201);
      assert.ok((created.body as { id: number }).id > (backupIds.at(-1) ?? 0));
    } finally {
      await stop(server);
    }
  });

  test('a corrupt file, a file that is not SQLite, another SQLite database and a newer schema are refused, leaving the database as it was', async () => {
    const before = sha256(database);
    const corrupt = path.join(dir, 'corrupt.db');
    copyFileSync(backup, corrupt);
    const fd = openSync(corrupt, 'r+');
    // Pages 2 to 5 overwritten: the tables' b-tree pages no longer parse.
    writeSync(fd, Buffer.alloc(4 * 4096, 0x5a), 0, 4 * 4096, 4096);
    closeSync(fd);
    const text = path.join(dir, 'notes.txt');
    writeFileSync(text, 'not a database\n');
    const foreign = path.join(dir, 'foreign.db');
    const other = new Sqlite(foreign);
    other.exec('CREATE TABLE t (x)');
    other.close();
    const newer = path.join(dir, 'newer.db');
    copyFileSync(backup, newer);
    const db = new Sqlite(newer);
    db.prepare(
      "INSERT INTO schema_migrations (version, name, applied_at, oldest_release) VALUES (9999, 'future', 'x', '99.0.0')",
    ).run();
    db.close();
    const corruptBefore = sha256(corrupt);

    assertRefused(
      await runCli(['restore', corrupt], env),
      /corrupt\.db (fails SQLite's integrity check|is damaged)/,
    );
    assertRefused(await runCli(['restore', text], env), /notes\.txt is not a SQLite database/);
    assertRefused(
      await runCli(['restore', foreign], env),
      /foreign\.db is a SQLite database but not a Pet Store one/,
    );
    assertRefused(
      await runCli(['restore', newer], env),
      /schema version 9999, which release 99\.0\.0 and later serve; this is release .*: restore it with release 99\.0\.0 or later/,
    );
    assertRefused(await runCli(['restore', path.join(dir, 'nothing.db')], env), /no file at .*nothing\.db/);
    assert.equal(sha256(database), before, 'the database is unchanged');
    assert.equal(sha256(corrupt), corruptBefore, 'the refused file is unchanged');
    assert.deepEqual(leftovers(path.dirname(database), ['petstore.db']), []);
  });

  test('a file whose schema objects are not this release’s is refused, naming each: triggers, a view, a table replaced by a view, a missing index, a changed trigger', async () => {
    const before = sha256(database);
    const crafted = path.join(dir, 'crafted');
    mkdirSync(crafted);
    for (const [index, craft] of CRAFTED_SCHEMAS.entries()) {
      const file = craftSchema(backup, crafted, craft, index);
      const result = await runCli(['restore', file], env);
      assertRefused(
        result,
        /crafted-\d\.db does not have the schema this release's migrations make at version \d+ \(.+\): nothing was restored/,
      );
      for (const named of craft.refusal) assert.match(result.stderr, named, craft.label);
    }
    assert.equal(sha256(database), before, 'the database is unchanged');
    assert.deepEqual(leftovers(path.dirname(database), ['petstore.db']), []);
  });

  test('every file a backup and a restore write is readable by this user only from its creation, under umask 022', async (t) => {
    const umask = process.umask(0o022);
    t.after(() => process.umask(umask));
    // A database of some 25 MB, so that the temporary files live long enough to be seen.
    const big = path.join(dir, 'big');
    mkdirSync(big);
    const bigEnv = { DATABASE_URL: `sqlite:${path.join(big, 'petstore.db')}`, PETSTORE_DATA_DIR: big };
    assert.equal((await runCli(['migrate'], bigEnv)).code, 0);
    const db = new Sqlite(path.join(big, 'petstore.db'));
    const insert = db.prepare('INSERT INTO categories (name, description) VALUES (?, ?)');
    db.transaction(() => {
      for (let i = 0; i < 25_000; i++) insert.run(`category ${i}`, `${i} `.padEnd(1000, 'x'));
    })();
    db.close();

    const backups = path.join(dir, 'modes');
    mkdirSync(backups);
    const backupFile = path.join(backups, 'big.db');
    await assertWrittenPrivately(backups, ['backup', backupFile], bigEnv, '.big.db.backup-');
    assert.equal(modeOf(backupFile), '600');

    // Copied by hand with the umask's mode, as people do: the restored database is still this user's only.
    const copied = path.join(backups, 'copied.db');
    copyFileSync(backupFile, copied);
    chmodSync(copied, 0o644);
    const target = path.join(dir, 'restore-modes');
    mkdirSync(target, { mode: 0o700 });
    const restoreEnv = {
      DATABASE_URL: `sqlite:${path.join(target, 'petstore.db')}`,
      PETSTORE_DATA_DIR: target,
    };
    await assertWrittenPrivately(target, ['restore', copied], restoreEnv, '.petstore.db.restore-');
    assert.equal(modeOf(path.join(target, 'petstore.db')), '600');
  });

  test('a backup refuses an existing file, a missing directory and a missing database, and writes nothing', async () => {
    const existing = path.join(dir, 'notes.txt');
    const before = sha256(existing);
    assertRefused(
      await runCli(['backup', existing], env),
      /notes\.txt already exists: choose a new file name/,
    );
    assert.equal(sha256(existing), before);
    assertRefused(
      await runCli(['backup', path.join(dir, 'no', 'such', 'dir.db')], env),
      /the directory .*no\/such does not exist/,
    );
    const absent = { ...env, DATABASE_URL: `sqlite:${path.join(dir, 'absent.db')}` };
    assertRefused(await runCli(['backup', path.join(dir, 'x.db')], absent), /no database at .*absent\.db/);
    assert.equal(existsSync(path.join(dir, 'x.db')), false);
    assert.equal(existsSync(path.join(dir, 'absent.db')), false, 'a backup never creates the database');
    const plain = await runCli(['backup', path.join(dir, 'plain.db')], env);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(
      plain.stdout,
      /^Backed up .+petstore\.db to .+plain\.db \(\d+ bytes, schema version \d+, integrity ok\); the request log stays out of backups \(docs\/request-log\.md\)\n$/,
    );
  });

  test('a backup or a restore that fails midway (the disk full) leaves nothing behind and the database as it was', async (t) => {
    const small = path.join(dir, 'small');
    mkdirSync(small);
    const size = statSync(backup).size;
    /** A tmpfs of `bytes` at `small`: too small for a further copy of the database, which fails mid-copy. */
    const mount = (bytes: number) =>
      run('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', small]).then(
        () => true,
        () => false,
      );
    if (!(await mount(Math.floor(size / 2)))) {
      t.skip('cannot mount a small tmpfs here (needs root)');
      return;
    }
    try {
      const failed = await runCli(['backup', path.join(small, 'full.db')], env);
      assertRefused(
        failed,
        /no room for the copy in .*small \(the disk is full\): free space there, nothing was changed/,
      );
      assert.deepEqual(readdirSync(small), [], 'no backup file, no temporary one');
    } finally {
      await run('umount', [small]);
    }
    assert.ok(await mount(size + Math.floor(size / 2)));
    try {
      const smallDatabase = path.join(small, 'petstore.db');
      copyFileSync(backup, smallDatabase);
      const before = sha256(smallDatabase);
      const smallEnv = { ...env, DATABASE_URL: `sqlite:${smallDatabase}` };
      assertRefused(
        await runCli(['restore', backup], smallEnv),
        /no room for the copy in .*small \(the disk is full\): free space there, nothing was changed/,
      );
      assert.equal(sha256(smallDatabase), before, 'the database is unchanged');
      assert.deepEqual(readdirSync(small), ['petstore.db'], 'no temporary file is left');
    } finally {
      await run('umount', [small]);
    }
  });

  test('on PostgreSQL both commands refuse in one line that points to pg_dump and pg_restore', async () => {
    const postgres = { DATABASE_URL: 'postgres://petstore@127.0.0.1:1/petstore' };
    assertRefused(
      await runCli(['backup', path.join(dir, 'pg.db')], postgres),
      /use pg_dump -Fc \(docs\/upgrades-and-backups\.md, "Backups"\)/,
    );
    assertRefused(await runCli(['restore', backup], postgres), /use pg_restore --clean --if-exists/);
    assert.equal(existsSync(path.join(dir, 'pg.db')), false);
  });
});

/** pg_dump and pg_restore of the PostgreSQL the private server runs, else the ones on PATH. */
function pgTool(name: 'pg_dump' | 'pg_restore'): string {
  const versioned = `/usr/lib/postgresql/15/bin/${name}`;
  return existsSync(versioned) ? versioned : name;
}

describe('PostgreSQL: the guide’s pg_dump / pg_restore round trip', () => {
  let postgres: PrivateServer;
  const { dir, remove } = tempDir('petstore-pgdump-');
  before(async () => {
    postgres = await startPrivatePostgres();
  });
  after(async () => {
    await postgres?.stop();
    remove();
  });

  test('a database filled through the API, dumped and restored into a fresh one, serves the same answers', async () => {
    const urlOf = (name: string) => {
      const url = new URL(postgres.url);
      url.pathname = `/${name}`;
      return url.toString();
    };
    const source = { DATABASE_URL: urlOf('petstore_live'), PETSTORE_DATA_DIR: dir };
    const key = await createUnlimitedKey(source);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const paths = ['/v1/categories', '/v1/pets', '/v1/store/orders'];
    const answers = async (url: string) =>
      Promise.all(
        paths.map(async (where) => {
          const response = await request(`${url}${where}`, { headers });
          assert.equal(response.status, 200, response.text);
          return { where, text: response.text, etag: response.headers.get('etag') };
        }),
      );

    const live = await spawnServer(source);
    let before: Awaited<ReturnType<typeof answers>>;
    try {
      const post = async (where: string, body: unknown) => {
        const response = await request(`${live.url}${where}`, {
          method: 'POST',
          headers,
          body: JSON.stringify(body),
        });
        assert.equal(response.status, 201, response.text);
        return (response.body as { id: number }).id;
      };
      for (let index = 0; index < 20; index++) {
        const categoryId = await post('/v1/categories', {
          name: `category ${index}`,
          description: `no. ${index}`,
        });
        const petId = await post('/v1/pets', { name: `pet ${index}`, categoryId, status: 'available' });
        if (index % 2 === 0) await post('/v1/store/orders', { petId, quantity: 1 + index });
      }
      before = await answers(live.url);
    } finally {
      await stop(live);
    }

    const dump = path.join(dir, 'petstore.dump');
    await run(pgTool('pg_dump'), ['--format=custom', `--file=${dump}`, source.DATABASE_URL]);
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query('CREATE DATABASE petstore_restored');
    await admin.end();
    const restored = { DATABASE_URL: urlOf('petstore_restored'), PETSTORE_DATA_DIR: dir };
    await run(pgTool('pg_restore'), [
      '--clean',
      '--if-exists',
      '--no-owner',
      `--dbname=${restored.DATABASE_URL}`,
      dump,
    ]);

    const server = await spawnServer(restored);
    try {
      assert.deepEqual(await answers(server.url), before, 'the same bodies and ETags, byte for byte');
      const created = await request(`${server.url}/v1/categories`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'after the restore' }),
      });
      assert.equal(created.status, 201);
      assert.equal((created.body as { id: number }).id, 21, 'the sequences came with the dump');
    } finally {
      await stop(server);
    }
  });
});
