import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { MIGRATIONS } from '../../src/storage/postgres/migrations.js';
import { createTestDatabase, POSTGRES_ADMIN_URL } from '../support/backends.js';
import { runCli } from '../support/process.js';

test('`petstore migrate` run by four instances at once applies each migration exactly once', async (t) => {
  const database = await createTestDatabase();
  t.after(database.drop);
  const env = { DATABASE_URL: database.url };
  const runs = await Promise.all(Array.from({ length: 4 }, () => runCli(['migrate'], env)));
  assert.deepEqual(
    runs.map((run) => run.code),
    [0, 0, 0, 0],
    runs.map((run) => run.stderr).join('\n'),
  );
  const versions = MIGRATIONS.map((migration) => migration.version);
  const outputs = runs.map((run) => run.stdout.trim()).sort();
  assert.deepEqual(outputs, [
    `Applied postgres migrations ${versions.join(', ')}.`,
    'The postgres schema is up to date.',
    'The postgres schema is up to date.',
    'The postgres schema is up to date.',
  ]);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT version FROM schema_migrations ORDER BY version');
    assert.deepEqual(
      rows.map((row) => row.version),
      versions,
    );
  } finally {
    await client.end();
  }
});

test('the service refuses a database where commits could return before reaching the disk', async (t) => {
  const database = await createTestDatabase();
  t.after(database.drop);
  const name = new URL(database.url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`ALTER DATABASE ${name} SET synchronous_commit = off`);
  } finally {
    await admin.end();
  }
  const result = await runCli(['serve'], { DATABASE_URL: database.url, PORT: '0' });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /synchronous_commit=off; acknowledged writes could be lost/);
});
