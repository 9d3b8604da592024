import assert from 'node:assert/strict';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { copyDatabase, Sqlite } from '../../src/storage/index.js';
import { createTestDatabase, createTestRedisPrefix, REDIS_URL } from '../support/backends.js';
import { CRAFTED_SCHEMAS, craftSchema } from '../support/crafted-schemas.js';
import { runCli } from '../support/process.js';
import { type JsonResponse, request, startTestServer, type TestServer, tempDir } from '../support/server.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

/** Every data table of the schema, for "the target is empty". */
const DATA_TABLES = [
  'api_keys',
  'admin_tokens',
  'admin_sessions',
  'categories',
  'pets',
  'orders',
  'idempotency_records',
  'domains',
  'key_usage',
  'key_usage_hourly',
  'key_deprecated_calls',
  'audit_events',
  'webhook_endpoints',
  'webhook_subscriptions',
  'webhook_events',
  'webhook_deliveries',
  'webhook_attempts',
];

/** The row count of every data table of a PostgreSQL database. */
async function postgresCounts(url: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const counts: Record<string, number> = {};
    for (const table of DATA_TABLES) {
      const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
      counts[table] = Number(rows[0]?.n);
    }
    return counts;
  } finally {
    await client.end();
  }
}

/** A query's rows on a SQLite file (a test server's `query` reads its own file, not a DATABASE_URL's). */
function sqliteRows<T>(file: string, sql: string): T[] {
  const db = new Sqlite(file, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

const json = { 'content-type': 'application/json' };

/** The reads whose answers must not change with the move, body and ETag, byte for byte. */
const READS = [
  '/v1/categories',
  '/v1/categories?limit=2',
  '/v1/pets',
  '/v1/pets?status=available',
  '/v1/store/orders',
  '/v1/pets/1',
  '/v1/pets/2',
];

interface Answer {
  status: number;
  etag: string | null;
  text: string;
}

const answer = (response: JsonResponse): Answer => ({
  status: response.status,
  etag: response.headers.get('etag'),
  text: response.text,
});

describe('petstore copy', () => {
  const dir = tempDir('petstore-copy-');
  const sqliteFile = path.join(dir.dir, 'source.db');
  const sqliteUrl = `sqlite:${sqliteFile}`;
  /** What the source served before it stopped. */
  const before_: Record<string, Answer> = {};
  const keys: { id: string; key: string }[] = [];
  let admin = '';
  let rotated = { old: '', successor: '' };
  let sessionCookie = '';
  let sessionSecret = '';
  let highestCategory = 0;
  let idempotentBody = '';
  /** Who made each admin token, as the source kept it: the CLI, and the token that made another. */
  let makers: { id: string; created_by: string | null }[] = [];
  const MAKERS = 'SELECT id, created_by FROM admin_tokens ORDER BY id';
  let postgres: { url: string; drop: () => Promise<void> };

  before(async () => {
    // Filled through the API, as a team's server would have filled it.
    const source = await startTestServer({ DATABASE_URL: sqliteUrl });
    try {
      admin = (await source.createAdminToken('ops')).token;
      const byToken = await source.admin(admin, '/admin-tokens', {
        method: 'POST',
        json: { name: 'made by ops', role: 'viewer' },
      });
      assert.equal(byToken.status, 201, byToken.text);
      makers = sqliteRows<{ id: string; created_by: string | null }>(sqliteFile, MAKERS);
      assert.deepEqual(
        makers.map((row) => row.created_by).sort(),
        ['cli', makers.find((row) => row.created_by === 'cli')?.id].sort(),
      );
      keys.push({ id: '', key: source.key });
      for (const plan of ['free', 'business']) {
        const created = await source.admin(admin, '/keys', { method: 'POST', json: { plan, name: plan } });
        assert.equal(created.status, 201, created.text);
        keys.push(created.body as { id: string; key: string });
      }
      const scoped = await source.admin(admin, '/keys', {
        method: 'POST',
        json: {
          plan: 'enterprise',
          name: 'scoped',
          perMinute: 5000,
          perDay: 50000,
          scopes: ['categories:read', 'pets:read'],
          expiresAt: '2099-01-01T00:00:00.000Z',
        },
      });
      assert.equal(scoped.status, 201, scoped.text);
      keys.push(scoped.body as { id: string; key: string });
      const toRotate = keys[1] as { id: string; key: string };
      const rotation = await source.admin(admin, `/keys/${toRotate.id}/rotate`, {
        method: 'POST',
        json: { gracePeriodSeconds: 86_400 },
      });
      assert.equal(rotation.status, 201, rotation.text);
      rotated = { old: toRotate.key, successor: (rotation.body as { key: string }).key };
      keys.push({ id: (rotation.body as { id: string }).id, key: rotated.successor });
      const session = await source.admin(admin, '/sessions', { method: 'POST' });
      assert.equal(session.status, 201, session.text);
      sessionCookie = (session.headers.get('set-cookie') ?? '').split(';')[0] as string;
      sessionSecret = (session.body as { secret: string }).secret;
      const domain = await source.admin(admin, '/domains', {
        method: 'POST',
        json: { name: 'api.example.test' },
      });
      assert.equal(domain.status, 201, domain.text);

      for (let i = 0; i < 5; i += 1) {
        const category = await source.post('/v1/categories', {
          name: `Category ${i}`,
          description: `été ${i} ✓`,
        });
        assert.equal(category.status, 201, category.text);
        highestCategory = (category.body as { id: number }).id;
      }
      const replayed = await source.post(
        '/v1/categories',
        { name: 'Idempotent' },
        { 'idempotency-key': 'move-1', ...json },
      );
      assert.equal(replayed.status, 201);
      idempotentBody = replayed.text;
      highestCategory = (replayed.body as { id: number }).id;
      for (let i = 0; i < 4; i += 1) {
        const pet = await source.post('/v1/pets', { name: `Pet ${i}`, categoryId: 1, status: 'available' });
        assert.equal(pet.status, 201, pet.text);
      }
      for (const petId of [1, 2]) {
        const order = await source.post('/v1/store/orders', { petId, quantity: 2 });
        assert.equal(order.status, 201, order.text);
      }
      // Usage for every key, the deprecated GET included.
      for (const { key } of keys) {
        await source.call('/v1/categories', { headers: { authorization: `Bearer ${key}` } });
      }
      await source.call('/v1/pets/1');
      for (const read of READS) before_[read] = answer(await source.call(read));
      const views = await source.admin(admin, '/keys');
      assert.equal(views.status, 200);
    } finally {
      await source.close();
    }
    postgres = await createTestDatabase();
  });

  after(async () => {
    await postgres?.drop();
    dir.remove();
  });

  test('copies SQLite into PostgreSQL, verified, with progress on stderr and every table reported', async () => {
    const copied = await runCli(['copy', '--from', sqliteUrl, '--to', postgres.url, '--json'], {});
    assert.equal(copied.code, 0, copied.stderr);
    assert.match(copied.stderr, /^categories: 6\/6$/m);
    const report = JSON.parse(copied.stdout) as {
      tables: { table: string; rows: number; checksum: string }[];
      sequences: { table: string; last: number }[];
    };
    assert.deepEqual(
      report.tables
        .map((table) => table.table)
        .filter((name) => DATA_TABLES.includes(name))
        .sort(),
      [...DATA_TABLES].sort(),
    );
    const counts = await postgresCounts(postgres.url);
    for (const table of report.tables) {
      if (DATA_TABLES.includes(table.table)) assert.equal(counts[table.table], table.rows, table.table);
      assert.match(table.checksum, /^[0-9a-f]{64}$/);
    }
    for (const table of [
      'categories',
      'pets',
      'orders',
      'admin_sessions',
      'domains',
      'idempotency_records',
      'key_usage',
      'key_usage_hourly',
      'key_deprecated_calls',
      'audit_events',
    ]) {
      assert.ok((counts[table] ?? 0) > 0, `${table} has rows to copy`);
    }
    assert.deepEqual(
      report.sequences.find((sequence) => sequence.table === 'categories')?.last,
      highestCategory,
    );
  });

  describe('two instances on the copy', () => {
    const servers: TestServer[] = [];
    const redis = createTestRedisPrefix();
    before(async () => {
      for (let i = 0; i < 2; i += 1) {
        servers.push(
          await startTestServer({ DATABASE_URL: postgres.url, REDIS_URL, REDIS_PREFIX: redis.prefix }),
        );
      }
    });
    after(async () => {
      for (const server of servers) await server.close();
      await redis.clear();
    });

    test('serve the same answers byte for byte, ETags included', async () => {
      for (const server of servers) {
        for (const read of READS) {
          const key = keys[0] as { key: string };
          const now = answer(await server.call(read, { headers: { authorization: `Bearer ${key.key}` } }));
          assert.deepEqual(now, before_[read], `${read} on ${server.url}`);
        }
      }
    });

    test('every old key works, the rotated one within its grace, with its plan and scopes', async () => {
      for (const server of servers) {
        for (const { key } of keys) {
          const response = await server.call('/v1/key', { headers: { authorization: `Bearer ${key}` } });
          assert.equal(response.status, 200, response.text);
        }
        const old = await server.call('/v1/categories', {
          headers: { authorization: `Bearer ${rotated.old}` },
        });
        assert.equal(old.status, 200, old.text);
        const scoped = keys[3] as { key: string };
        const refused = await server.post(
          '/v1/categories',
          { name: 'x' },
          { authorization: `Bearer ${scoped.key}` },
        );
        assert.equal(refused.status, 403, refused.text);
        const own = await server.call('/v1/key', { headers: { authorization: `Bearer ${scoped.key}` } });
        const view = own.body as { plan: string; expiresAt: string; scopes: string[] };
        assert.deepEqual(
          [view.plan, view.expiresAt, view.scopes],
          ['enterprise', '2099-01-01T00:00:00.000Z', ['categories:read', 'pets:read']],
        );
        const tokens = await server.admin(admin, '/keys');
        assert.equal(tokens.status, 200, 'the old admin token works');
      }
      const signedIn = await request(`${(servers[1] as TestServer).url}/admin/v1/keys`, {
        headers: { cookie: sessionCookie, 'x-petstore-session': sessionSecret },
      });
      assert.equal(signedIn.status, 200, 'a console session keeps working');
      const domains = await (servers[0] as TestServer).admin(admin, '/domains');
      assert.match(domains.text, /api\.example\.test/);
      const audit = await (servers[0] as TestServer).admin(admin, '/audit');
      assert.equal(audit.status, 200);
      assert.match(audit.text, /key\.rotated/);
      assert.deepEqual(await (servers[0] as TestServer).query(MAKERS), makers, 'who made each admin token');
    });

    test('an idempotent create replays its first answer, and new creates get ids above the copied ones', async () => {
      const server = servers[1] as TestServer;
      const replay = await server.post(
        '/v1/categories',
        { name: 'Idempotent' },
        { 'idempotency-key': 'move-1', ...json, authorization: `Bearer ${(keys[0] as { key: string }).key}` },
      );
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal(replay.text, idempotentBody);
      const created = await server.post('/v1/categories', { name: 'After the move' });
      assert.equal(created.status, 201, created.text);
      assert.equal((created.body as { id: number }).id, highestCategory + 1);
      const pet = await server.post('/v1/pets', { name: 'New', categoryId: 1, status: 'available' });
      assert.equal((pet.body as { id: number }).id, 5);
      const order = await server.post('/v1/store/orders', { petId: 5, quantity: 1 });
      assert.equal((order.body as { id: number }).id, 3);
    });
  });

  test('a non-empty target is refused, in one line naming the table', async () => {
    const again = await runCli(['copy', '--from', sqliteUrl, '--to', postgres.url], {});
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^petstore: the target .* is not empty: its table api_keys holds rows; .*\n$/);
  });

  test('copies back from PostgreSQL into SQLite, which then serves the same answers; the new file is this user’s only', async (t) => {
    const umask = process.umask(0o022);
    t.after(() => process.umask(umask));
    const back = path.join(dir.dir, 'back.db');
    const copied = await runCli(['copy', '--from', postgres.url, '--to', `sqlite:${back}`], {});
    assert.equal(copied.code, 0, copied.stderr);
    assert.match(copied.stdout, /verified/);
    assert.equal((statSync(back).mode & 0o777).toString(8), '600', 'created 0600, whatever the umask');
    const server = await startTestServer({ DATABASE_URL: `sqlite:${back}` });
    try {
      const list = await server.call('/v1/categories?limit=2');
      assert.deepEqual(answer(list), before_['/v1/categories?limit=2']);
      const orders = await server.call('/v1/store/orders');
      assert.equal(orders.status, 200);
      // Three orders now, the one made on PostgreSQL included, with the same createdAt text.
      assert.equal((orders.body as unknown[]).length, 3);
      assert.ok(orders.text.includes(before_['/v1/store/orders']?.text.slice(1, -1) ?? 'missing'));
      const created = await server.post('/v1/categories', { name: 'Back home' });
      assert.equal((created.body as { id: number }).id, highestCategory + 2);
      const old = await server.call('/v1/categories', {
        headers: { authorization: `Bearer ${rotated.old}` },
      });
      assert.equal(old.status, 200);
      assert.deepEqual(sqliteRows(back, MAKERS), makers, 'who made each admin token');
    } finally {
      await server.close();
    }
  });

  test('a copy that fails midway leaves the target empty: an injected failure, and a cut connection', async () => {
    const injected = await createTestDatabase();
    try {
      await assert.rejects(
        copyDatabase({
          from: { kind: 'sqlite', file: sqliteFile, isDefault: false, dataDir: dir.dir },
          to: { kind: 'postgres', url: injected.url, poolSize: 1 },
          batchSize: 2,
          onProgress({ table, copied }) {
            if (table === 'categories' && copied >= 4) throw new Error('injected');
          },
        }),
        /injected/,
      );
      assert.deepEqual(
        Object.values(await postgresCounts(injected.url)),
        DATA_TABLES.map(() => 0),
      );
    } finally {
      await injected.drop();
    }
    const cut = await createTestDatabase();
    const proxy = await startTcpProxy({
      host: new URL(cut.url).hostname,
      port: Number(new URL(cut.url).port),
    });
    try {
      const through = new URL(cut.url);
      through.port = String(proxy.port);
      await assert.rejects(
        copyDatabase({
          from: { kind: 'sqlite', file: sqliteFile, isDefault: false, dataDir: dir.dir },
          to: { kind: 'postgres', url: through.toString(), poolSize: 1 },
          batchSize: 2,
          onProgress({ table, copied }) {
            if (table === 'pets' && copied >= 2) proxy.cut();
          },
        }),
      );
      assert.deepEqual(
        Object.values(await postgresCounts(cut.url)),
        DATA_TABLES.map(() => 0),
      );
      // And into SQLite: the file keeps its schema and no row.
      const file = path.join(dir.dir, 'failed.db');
      await assert.rejects(
        copyDatabase({
          from: { kind: 'postgres', url: postgres.url, poolSize: 1 },
          to: { kind: 'sqlite', file, isDefault: false, dataDir: dir.dir },
          batchSize: 2,
          onProgress({ table, copied }) {
            if (table === 'orders' && copied >= 2) throw new Error('injected');
          },
        }),
        /injected/,
      );
      const server = await startTestServer({ DATABASE_URL: `sqlite:${file}` });
      try {
        assert.equal((await server.call('/v1/categories')).text, '[]');
      } finally {
        await server.close();
      }
    } finally {
      await proxy.close();
      await cut.drop();
    }
  });

  test('refuses a source on another schema version, or none, in one line', async () => {
    const empty = await createTestDatabase();
    try {
      const none = await runCli(
        ['copy', '--from', empty.url, '--to', `sqlite:${path.join(dir.dir, 'x.db')}`],
        {},
      );
      assert.equal(none.code, 1);
      assert.match(none.stderr, /^petstore: the source .* holds no Pet Store schema\n$/);
      const client = new pg.Client({ connectionString: empty.url });
      await client.connect();
      await client.query(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now()); INSERT INTO schema_migrations (version, name) VALUES (3, 'old')",
      );
      await client.end();
      const old = await runCli(
        ['copy', '--from', empty.url, '--to', `sqlite:${path.join(dir.dir, 'x.db')}`],
        {},
      );
      assert.equal(old.code, 1);
      assert.match(old.stderr, /^petstore: the source .* is at schema version 3, .*petstore migrate\n$/);
    } finally {
      await empty.drop();
    }
  });

  test('a SQLite source or target whose schema objects are not this release’s is refused, naming each, before anything is written', async () => {
    const crafted = path.join(dir.dir, 'crafted');
    mkdirSync(crafted);
    const refusal = (role: string, file: RegExp) =>
      new RegExp(
        `^petstore: the ${role} ${file.source} does not have the schema this release's migrations make at version \\d+ \\(.+\\): nothing was copied\\n$`,
      );
    const target = await createTestDatabase();
    try {
      for (const [index, craft] of CRAFTED_SCHEMAS.entries()) {
        const file = craftSchema(sqliteFile, crafted, craft, index);
        const into = path.join(crafted, `target-${index}.db`);
        // Into a new SQLite file, and (once) into an empty PostgreSQL database.
        for (const to of index === 0 ? [`sqlite:${into}`, target.url] : [`sqlite:${into}`]) {
          const result = await runCli(['copy', '--from', `sqlite:${file}`, '--to', to], {});
          assert.equal(result.code, 1, result.stdout);
          assert.equal(result.stdout, '');
          assert.match(result.stderr, refusal('source', /.*crafted-\d\.db/));
          for (const named of craft.refusal) assert.match(result.stderr, named, craft.label);
        }
        assert.equal(existsSync(into), false, 'no target file was made');
      }
      const client = new pg.Client({ connectionString: target.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'",
        );
        assert.equal(rows[0]?.n, 0, 'the PostgreSQL target was not even migrated');
      } finally {
        await client.end();
      }
    } finally {
      await target.drop();
    }

    // A target file made beforehand, with a trigger in it: refused too, and left without a row.
    const prepared = path.join(crafted, 'prepared.db');
    assert.equal((await runCli(['migrate'], { DATABASE_URL: `sqlite:${prepared}` })).code, 0);
    const db = new Sqlite(prepared);
    db.exec(CRAFTED_SCHEMAS[0]?.sql ?? '');
    db.close();
    const result = await runCli(['copy', '--from', sqliteUrl, '--to', `sqlite:${prepared}`], {});
    assert.match(result.stderr, refusal('target', /.*prepared\.db/));
    assert.match(result.stderr, /an extra trigger "keep_admin" on admin_tokens/);
    const after = new Sqlite(prepared, { readonly: true });
    try {
      assert.equal(after.prepare('SELECT count(*) FROM api_keys').pluck().get(), 0);
    } finally {
      after.close();
    }
  });
});
