import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { API_VERSION } from '../../src/contract/index.js';
import { compareReleases, OLDEST_RELEASE_SERVING, SCHEMA_VERSION } from '../../src/storage/index.js';
import {
  migrate as migratePostgres,
  MIGRATIONS as POSTGRES_MIGRATIONS,
} from '../../src/storage/postgres/migrations.js';
import { Sqlite } from '../../src/storage/sqlite/driver.js';
import {
  migrate as migrateSqlite,
  MIGRATIONS as SQLITE_MIGRATIONS,
} from '../../src/storage/sqlite/migrations.js';
import { createTestDatabase, querySqlite } from '../support/backends.js';
import { runCli } from '../support/process.js';
import { tempDir } from '../support/server.js';

/** The checkout: dist/test/storage/ is three levels below it. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Release {
  version: string;
  commit: string | null;
  schema: number;
}

/** A database of each backend, made at `version` (or the newest), with `future` rows added after it. */
interface Made {
  env: Record<string, string>;
  /** Adds a schema version this release does not know, which needs `oldestRelease` to be served. */
  addFutureVersion(version: number, oldestRelease: string): Promise<void>;
  /** Runs statements (no parameters) on the database, as it is. */
  run(sql: string): Promise<void>;
  /** A query's rows. */
  rows<T>(sql: string): Promise<T[]>;
  drop(): Promise<void>;
}

const BACKENDS: { name: string; make: (version: number) => Promise<Made> }[] = [
  {
    name: 'sqlite',
    async make(version) {
      const { dir, remove } = tempDir();
      const file = path.join(dir, 'petstore.db');
      const db = new Sqlite(file);
      migrateSqlite(db, SQLITE_MIGRATIONS.slice(0, version));
      db.close();
      return {
        env: { DATABASE_URL: `sqlite:${file}` },
        async addFutureVersion(future, oldestRelease) {
          const db = new Sqlite(file);
          db.prepare(
            "INSERT INTO schema_migrations (version, name, applied_at, oldest_release) VALUES (?, 'future', '2030-01-01', ?)",
          ).run(future, oldestRelease);
          db.close();
        },
        async run(sql) {
          const db = new Sqlite(file);
          db.exec(sql);
          db.close();
        },
        rows: async <T>(sql: string) => querySqlite<T>(file, sql),
        drop: async () => remove(),
      };
    },
  },
  {
    name: 'postgres',
    async make(version) {
      const { url, drop } = await createTestDatabase();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await migratePostgres(client as unknown as pg.PoolClient, POSTGRES_MIGRATIONS.slice(0, version));
      return {
        env: { DATABASE_URL: url },
        async addFutureVersion(future, oldestRelease) {
          await client.query(
            "INSERT INTO schema_migrations (version, name, oldest_release) VALUES ($1, 'future', $2)",
            [future, oldestRelease],
          );
        },
        async run(sql) {
          await client.query(sql);
        },
        async rows<T>(sql: string) {
          return (await client.query(sql)).rows as T[];
        },
        async drop() {
          await client.end();
          await drop();
        },
      };
    },
  },
];

test('every migration of both backends says the oldest release that serves it; the newest is SCHEMA_VERSION', () => {
  for (const migrations of [SQLITE_MIGRATIONS, POSTGRES_MIGRATIONS]) {
    const versions = migrations.map((migration) => migration.version);
    assert.deepEqual(versions, Object.keys(OLDEST_RELEASE_SERVING).map(Number));
    assert.equal(Math.max(...versions), SCHEMA_VERSION);
  }
});

test('releases.json: the newest is this release at this schema; each earlier commit is in history at its schema', () => {
  const { releases } = JSON.parse(readFileSync(path.join(ROOT, 'releases.json'), 'utf8')) as {
    releases: Release[];
  };
  const newest = releases.at(-1) as Release;
  assert.deepEqual(newest, { version: API_VERSION, commit: null, schema: SCHEMA_VERSION });
  for (const release of releases.slice(0, -1)) {
    assert.match(release.commit ?? '', /^[0-9a-f]{40}$/, release.version);
    const migrations = execFileSync('git', ['show', `${release.commit}:src/storage/sqlite/migrations.ts`], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    const versions = [...migrations.matchAll(/^ {4}version: (\d+),$/gm)].map((match) => Number(match[1]));
    assert.equal(Math.max(...versions), release.schema, `${release.version} at ${release.commit}`);
  }
});

for (const backend of BACKENDS) {
  describe(`the schema's version and the releases that serve it (${backend.name})`, () => {
    let made: Made;
    before(async () => {
      made = await backend.make(SCHEMA_VERSION - 1);
    });
    after(() => made.drop());

    test('migrate --check says a migration is due (exit 1) and changes nothing; after migrate it is current', async () => {
      const due = await runCli(['migrate', '--check'], made.env);
      assert.equal(due.code, 1, due.stderr);
      assert.match(
        due.stdout,
        new RegExp(
          // The version before may be one no release shipped at (two migrations in one release).
          `schema is at version ${SCHEMA_VERSION - 1}( \\(release [0-9., ]+\\))?; release ${API_VERSION} is at ${SCHEMA_VERSION}: 1 migration due \\(${SCHEMA_VERSION}\\)`,
        ),
      );
      assert.equal((await runCli(['migrate', '--check'], made.env)).code, 1, 'the check migrated nothing');
      const migrated = await runCli(['migrate'], made.env);
      assert.equal(migrated.code, 0, migrated.stderr);
      const current = await runCli(['migrate', '--check'], made.env);
      assert.equal(current.code, 0, current.stderr);
      assert.match(
        current.stdout,
        // Every release at this schema, this one last ("release 1.3.0, 1.4.0" while two share it).
        new RegExp(`at version ${SCHEMA_VERSION} \\(release ([0-9.]+, )*${API_VERSION}\\): up to date`),
      );
    });

    test('a newer schema that this release still serves is served; one it cannot serve is refused in one line', async () => {
      await made.addFutureVersion(SCHEMA_VERSION + 1, '1.0.0');
      const served = await runCli(['keys', 'list'], made.env);
      assert.equal(served.code, 0, served.stderr);
      const check = await runCli(['migrate', '--check'], made.env);
      assert.equal(check.code, 0, check.stderr);
      // The future version needs only 1.0.0, but this release's own newest migration may need more.
      const needed = Object.values(OLDEST_RELEASE_SERVING).sort(compareReleases).at(-1) as string;
      assert.match(
        check.stdout,
        new RegExp(
          `newer than release .*served by release ${needed.replaceAll('.', '\\.')} and later, this one included`,
        ),
      );

      // A release that contracted the schema (removed what this release still uses) records that it needs itself.
      await made.addFutureVersion(SCHEMA_VERSION + 2, '99.0.0');
      for (const args of [['keys', 'list'], ['serve'], ['migrate'], ['migrate', '--check']]) {
        const refused = await runCli(args, { ...made.env, PORT: '0' });
        assert.equal(refused.code, 1, `${args.join(' ')}: ${refused.stdout}${refused.stderr}`);
        const lines = refused.stderr.trim().split('\n');
        assert.equal(lines.length, 1, refused.stderr);
        assert.match(
          lines[0] as string,
          new RegExp(
            `is at schema ${SCHEMA_VERSION + 2}, which release 99\\.0\\.0 and later serve; this is release ${API_VERSION.replaceAll('.', '\\.')}`,
          ),
        );
      }
    });
  });
}

for (const backend of BACKENDS) {
  test(`schema 15 fills who made each admin token from the audit; one the audit does not name stays null (${backend.name})`, async (t) => {
    const made = await backend.make(14);
    t.after(() => made.drop());
    const token = (id: string) =>
      `INSERT INTO admin_tokens (id, name, prefix, digest, created_at, revoked_at, role)
        VALUES ('${id}', '${id}', 'ps_admin_abcd', 'digest-${id}', '2026-11-01T00:00:00.000Z', NULL, 'owner');`;
    const created = (actor: string, target: string) =>
      `INSERT INTO audit_events (at, actor, action, target, details)
        VALUES ('2026-11-01T00:00:00.000Z', '${actor}', 'admin_token.created', '${target}', '{}');`;
    const other = (actor: string, target: string) =>
      `INSERT INTO audit_events (at, actor, action, target, details)
        VALUES ('2026-11-02T00:00:00.000Z', '${actor}', 'admin_token.revoked', '${target}', '{}');`;
    await made.run(
      [
        token('adm_bycli00000'),
        created('cli', 'adm_bycli00000'),
        token('adm_bytoken000'),
        created('adm_bycli00000', 'adm_bytoken000'),
        // Revoked by someone else later: only its creation names its maker.
        other('adm_bytoken000', 'adm_bytoken000'),
        token('adm_byperson00'),
        created('per_7Hq2Lm9xKc3a', 'adm_byperson00'),
        token('adm_noentry000'),
      ].join('\n'),
    );
    const migrated = await runCli(['migrate'], made.env);
    assert.equal(migrated.code, 0, migrated.stderr);
    const rows = await made.rows<{ id: string; created_by: string | null }>(
      'SELECT id, created_by FROM admin_tokens ORDER BY id',
    );
    assert.deepEqual(
      rows.map((row) => [row.id, row.created_by]),
      [
        ['adm_bycli00000', 'cli'],
        ['adm_byperson00', 'per_7Hq2Lm9xKc3a'],
        ['adm_bytoken000', 'adm_bycli00000'],
        ['adm_noentry000', null],
      ],
    );
    const listed = await runCli(['admin-tokens', 'list'], made.env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^adm_bytoken000 .* by token adm_bycli00000 "adm_bycli00000" {2}active$/m);
    assert.match(listed.stdout, /^adm_byperson00 .* by person per_7Hq2Lm9xKc3a {2}active$/m);
    assert.match(listed.stdout, /^adm_noentry000 .* by \(not recorded\) {2}active$/m);
  });
}
