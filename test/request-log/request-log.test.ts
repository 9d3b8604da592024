import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { after, before, describe, type TestContext, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import pg from 'pg';
import { FakeClock } from '../../src/clock/index.js';
import type { AdminLoggedRequest, LoggedRequest } from '../../src/contract/index.js';
import { batchOf, INSTANCE, type RequestLog, type RequestRecord } from '../../src/request-log/index.js';
import {
  openRequestLogStore,
  postgresRequestLogQuery,
  requestLogFile,
  Sqlite,
} from '../../src/storage/index.js';
import { assertError, assertNothingSpent } from '../support/assertions.js';
import { BACKENDS, createTestDatabase, SQLITE_MEMORY } from '../support/backends.js';
import { type JsonResponse, startTestServer, type TestServer } from '../support/server.js';

// Before the deprecated endpoint's sunset (2027-06-30), whatever day the suite runs.
const START = '2026-12-01T10:00:00.000Z';
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * A SQLite server whose request log may hold 1 MB (REQUEST_LOG_MAX_MB), its log filled by `fill` with rows
 * from `base`, an hour ago (inside REQUEST_LOG_DAYS whenever the test runs), then written and pruned. The
 * server is closed after the test.
 */
async function prunedToOneMegabyte(t: TestContext, fill: (log: RequestLog, base: number) => void) {
  const server = await startTestServer({ REQUEST_LOG_MAX_MB: '1' }, { backend: SQLITE_MEMORY });
  t.after(() => server.close());
  const log = server.deps.requestLog as RequestLog;
  const base = Date.now() - HOUR_MS;
  fill(log, base);
  await log.flush();
  await log.prune();
  return { server, base };
}

/** A request the test sent, and what its row must say. */
interface Sent {
  requestId: string;
  status: number;
  keyId: string | null;
  actor: string | null;
  method: string;
  route: string | null;
  errorCode: string | null;
}

const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });

/**
 * A row as the log keeps it, written straight to the log (its retention is the subject, not the request): of
 * a key, unless `keyId` is null (a stranger's, of which the log keeps ten a second from one address).
 */
function logRow(
  requestId: string,
  at: number,
  userAgent: string | null = null,
  keyId: string | null = 'key_rowsofatest',
): RequestRecord {
  return {
    at,
    requestId,
    keyId,
    actor: null,
    client: '127.0.0.1',
    method: 'GET',
    route: '/v1/categories',
    path: '/v1/categories',
    status: 200,
    errorCode: null,
    errorMessage: null,
    durationMs: 1,
    bytes: 2,
    remaining: null,
    replayed: false,
    deprecated: false,
    instance: INSTANCE,
    userAgent,
  };
}

for (const backend of BACKENDS) {
  describe(`the request log (${backend.name})`, () => {
    let server: TestServer;
    let clock: FakeClock;
    let admin: { id: string; token: string };
    let a: { id: string; key: string };
    let b: { id: string; key: string };
    const sent: Sent[] = [];
    /** Sends a request and notes what its row must say. */
    async function send(
      answer: Promise<JsonResponse>,
      who: { keyId?: string; actor?: string },
      expected: { status: number; method: string; route: string | null },
    ): Promise<JsonResponse> {
      const response = await answer;
      assert.equal(response.status, expected.status, response.text);
      const requestId = response.headers.get('x-request-id') as string;
      sent.push({
        requestId,
        status: response.status,
        keyId: who.keyId ?? null,
        actor: who.actor ?? null,
        method: expected.method,
        route: expected.route,
        errorCode: response.status >= 400 ? (response.body as { code: string }).code : null,
      });
      return response;
    }
    const rows = async (query: string, credential = admin.token): Promise<AdminLoggedRequest[]> => {
      const answer = await server.admin(credential, `/requests?${query}`);
      assert.equal(answer.status, 200, answer.text);
      return answer.body as AdminLoggedRequest[];
    };
    const ids = (list: { requestId: string }[]) => list.map((row) => row.requestId).sort();
    const sentIds = (keep: (sent: Sent) => boolean) => ids(sent.filter(keep));

    before(async () => {
      clock = new FakeClock(START);
      server = await startTestServer({}, { backend, clock });
      admin = await server.createAdminToken('support');
      a = await server.createKey({ plan: 'pro', name: 'A' });
      b = await server.createKey({ plan: 'enterprise', name: 'B', limits: { perMinute: 3, perDay: 1000 } });
      const A = { keyId: a.id };
      const asA = { headers: bearer(a.key) };
      await send(server.call('/v1/categories', asA), A, {
        status: 200,
        method: 'GET',
        route: '/v1/categories',
      });
      const category = await send(server.post('/v1/categories', { name: 'Dogs' }, bearer(a.key)), A, {
        status: 201,
        method: 'POST',
        route: '/v1/categories',
      });
      await send(server.post('/v1/categories', { nom: 'x' }, bearer(a.key)), A, {
        status: 400,
        method: 'POST',
        route: '/v1/categories',
      });
      const pet = await send(
        server.post(
          '/v1/pets',
          { name: 'Rex', categoryId: (category.body as { id: number }).id, status: 'available' },
          bearer(a.key),
        ),
        A,
        { status: 201, method: 'POST', route: '/v1/pets' },
      );
      const order = { petId: (pet.body as { id: number }).id, quantity: 1 };
      await send(server.post('/v1/store/orders', order, bearer(a.key)), A, {
        status: 201,
        method: 'POST',
        route: '/v1/store/orders',
      });
      await send(server.post('/v1/store/orders', order, bearer(a.key)), A, {
        status: 409,
        method: 'POST',
        route: '/v1/store/orders',
      });
      await send(server.call('/v1/pets/999999', asA), A, {
        status: 404,
        method: 'GET',
        route: '/v1/pets/{petId}',
      });
      // B's minute holds 3: the fourth is 429.
      for (const status of [200, 200, 200, 429]) {
        await send(
          server.call('/v1/pets', { headers: bearer(b.key) }),
          { keyId: b.id },
          {
            status,
            method: 'GET',
            route: '/v1/pets',
          },
        );
      }
      await send(
        server.call('/v1/categories', { headers: { authorization: '' } }),
        {},
        {
          status: 401,
          method: 'GET',
          route: '/v1/categories',
        },
      );
      await send(server.call('/v1/nowhere', asA), A, { status: 404, method: 'GET', route: null });
      await send(
        server.admin(admin.token, '/keys'),
        { actor: admin.id },
        {
          status: 200,
          method: 'GET',
          route: '/admin/v1/keys',
        },
      );
    });
    after(() => server.close());

    test('every request sent has its row, under the X-Request-Id its client got, saying what happened', async () => {
      for (const expected of sent) {
        const answer = await server.admin(admin.token, `/requests/${expected.requestId}`);
        assert.equal(answer.status, 200, answer.text);
        const row = answer.body as AdminLoggedRequest;
        assert.deepEqual(
          {
            requestId: row.requestId,
            status: row.status,
            keyId: row.keyId,
            actor: row.actor,
            method: row.method,
            route: row.route,
            errorCode: row.errorCode,
          },
          expected,
        );
        assert.equal(row.instance, INSTANCE);
        assert.equal(row.client, '127.0.0.1');
        assert.equal(row.at, START, 'the fake clock stands still');
        assert.equal(row.errorMessage === null, expected.status < 400);
        assert.ok(row.durationMs >= 0 && row.bytes >= 0);
      }
      const limited = (await rows('status=429')).find((row) => row.keyId === b.id);
      assert.equal(limited?.rateLimitRemaining, 0);
      assertError(await server.admin(admin.token, '/requests/no-such-id'), 404, 'not_found');
    });

    test('each filter answers exactly the rows sent that match it', async () => {
      const sentHere = new Set(sent.map((row) => row.requestId));
      const ours = (list: AdminLoggedRequest[]) => ids(list.filter((row) => sentHere.has(row.requestId)));
      assert.deepEqual(
        ids(await rows(`key=${a.id}&limit=200`)),
        sentIds((row) => row.keyId === a.id),
      );
      assert.deepEqual(
        ids(await rows(`key=${b.id}&limit=200`)),
        sentIds((row) => row.keyId === b.id),
      );
      assert.deepEqual(
        ours(await rows('status=4xx&limit=200')),
        sentIds((row) => row.status >= 400),
      );
      assert.deepEqual(
        ours(await rows('status=404&limit=200')),
        sentIds((row) => row.status === 404),
      );
      assert.deepEqual(
        ours(await rows('status=2xx&limit=200')),
        sentIds((row) => row.status < 300),
      );
      const limitedCode = sent.find((row) => row.status === 429)?.errorCode as string;
      assert.deepEqual(
        ours(await rows(`code=${limitedCode}`)),
        sentIds((row) => row.errorCode === limitedCode),
      );
      assert.deepEqual(
        ours(await rows('route=/v1/pets/{petId}')),
        sentIds((row) => row.route === '/v1/pets/{petId}'),
      );
      assert.deepEqual(
        ours(await rows('method=POST&limit=200')),
        sentIds((row) => row.method === 'POST'),
      );
      const one = sent[3] as Sent;
      assert.deepEqual(ids(await rows(`requestId=${one.requestId}`)), [one.requestId]);
      assert.equal((await rows('client=10.9.8.7')).length, 0);
      assert.deepEqual(
        ours(await rows('client=127.0.0.1&limit=200')),
        sentIds(() => true),
      );
      // Time: the clock stood at START for every one of them.
      const at = Date.parse(START);
      assert.deepEqual(
        ours(await rows(`from=${new Date(at).toISOString()}&to=${new Date(at + 1).toISOString()}&limit=200`)),
        sentIds(() => true),
      );
      assert.equal((await rows(`to=${START}`)).length, 0);
      assertError(await server.admin(admin.token, '/requests?status=6xx'), 400, 'validation_failed');
      assertError(await server.admin(admin.token, '/requests?cursor=bm9wZQ'), 400, 'validation_failed');
      assertError(await server.admin(admin.token, '/requests?limit=201'), 400, 'validation_failed');
    });

    test("api=v1 answers the API's traffic alone and api=admin the admin API's, by path: a stranger's 401 too", async () => {
      const stranger = await server.call('/admin/v1/keys', { headers: { authorization: '' } });
      assert.equal(stranger.status, 401);
      const strangerId = stranger.headers.get('x-request-id') as string;
      const sentHere = new Set(sent.map((row) => row.requestId));
      const ours = (list: AdminLoggedRequest[]) => ids(list.filter((row) => sentHere.has(row.requestId)));

      const api = await rows('api=v1&limit=200');
      assert.ok(
        api.every((row) => row.path.startsWith('/v1/')),
        api.map((row) => row.path).join(),
      );
      assert.deepEqual(
        ours(api),
        sentIds((row) => row.actor === null),
      );
      // This test's own reads of the log are admin calls: none of them is API traffic.
      const admins = await rows('api=admin&limit=200');
      assert.ok(
        admins.length > 0 && admins.every((row) => row.path.startsWith('/admin/v1/')),
        admins.map((row) => row.path).join(),
      );
      assert.deepEqual(
        ours(admins),
        sentIds((row) => row.actor !== null),
      );
      assert.ok(ids(admins).includes(strangerId), 'a call without a token is the admin API’s too');
      assert.ok(!ids(api).includes(strangerId));

      // With the other filters, and in an export.
      assert.deepEqual(await rows(`api=admin&key=${a.id}`), []);
      assert.deepEqual(
        ours(await rows('api=v1&status=4xx&limit=200')),
        sentIds((row) => row.actor === null && row.status >= 400),
      );
      const exported = await server.admin(admin.token, '/requests?api=admin&format=ndjson');
      assert.equal(exported.status, 200, exported.text);
      const lines = exported.text.trim().split('\n');
      assert.ok(
        lines.every((line) => (JSON.parse(line) as AdminLoggedRequest).path.startsWith('/admin/v1/')),
      );
      assertError(await server.admin(admin.token, '/requests?api=v2'), 400, 'validation_failed');
    });

    test("a key holder sees its own requests only, spending no quota, and never another key's", async () => {
      const own = await server.call('/v1/key/requests?limit=200', { headers: bearer(b.key) });
      assert.equal(own.status, 200, own.text);
      // B's minute was spent in `before`: the list answers it all the same, on a limit of its own.
      assert.equal(own.headers.get('x-ratelimit-limit'), '30', 'its own limit, 30 a minute');
      const plan = await server.call('/v1/key', { headers: bearer(b.key) });
      assertNothingSpent(plan, '0', "the key's minute is spent and stays so: the list spent none of it");
      const list = own.body as LoggedRequest[];
      assert.ok(list.every((row) => row.keyId === b.id));
      assert.ok(list.every((row) => !('instance' in row) && !('actor' in row)));
      assert.deepEqual(
        ids(list.filter((row) => row.route === '/v1/pets')),
        sentIds((row) => row.keyId === b.id),
      );
      const limited = await server.call('/v1/key/requests?status=429', { headers: bearer(b.key) });
      assert.deepEqual(
        ids(limited.body as LoggedRequest[]),
        sentIds((row) => row.keyId === b.id && row.status === 429),
      );
      // A's requests, asked for by request id, are not B's to see.
      const ofA = sent.find((row) => row.keyId === a.id) as Sent;
      const foreign = await server.call(`/v1/key/requests?requestId=${ofA.requestId}`, {
        headers: bearer(b.key),
      });
      assert.deepEqual(foreign.body, []);
      assertError(
        await server.call(`/v1/key/requests?key=${a.id}`, { headers: bearer(b.key) }),
        400,
        'validation_failed',
      );
    });

    test('reading the request log has a limit of its own, 30 a minute per key, which spends none of the plan', async () => {
      clock.advance(60_000);
      const { key } = await server.createKey({ plan: 'pro', name: 'poller' });
      for (let call = 1; call <= 30; call += 1) {
        const answer = await server.call('/v1/key/requests?limit=1', { headers: bearer(key) });
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.headers.get('x-ratelimit-remaining'), String(30 - call));
      }
      const refused = await server.call('/v1/key/requests?limit=1', { headers: bearer(key) });
      assertError(refused, 429, 'rate_limit_exceeded');
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      const plan = await server.call('/v1/categories', { headers: bearer(key) });
      assert.equal(plan.status, 200, 'the plan is untouched');
      assert.equal(plan.headers.get('x-ratelimit-remaining'), '299');
    });

    test('paging with the cursor neither repeats nor skips a row while new requests arrive', async () => {
      const before = ids(await rows(`key=${a.id}&limit=200`));
      const seen: string[] = [];
      let next: string | undefined = `/requests?key=${a.id}&limit=2`;
      while (next !== undefined) {
        // New rows of the same key land between the pages: newer than any page, so in none of them.
        await server.call('/v1/categories', { headers: bearer(a.key) });
        const page = await server.admin(admin.token, next);
        assert.equal(page.status, 200, page.text);
        seen.push(...(page.body as AdminLoggedRequest[]).map((row) => row.requestId));
        const link = page.headers.get('link');
        next = link === null ? undefined : /<\/admin\/v1([^>]+)>; rel="next"/.exec(link)?.[1];
      }
      assert.equal(new Set(seen).size, seen.length, 'no row twice');
      // The first page began at the newest row of its moment; every row there before is in the pages.
      assert.ok(
        before.every((id) => seen.includes(id)),
        'no row skipped',
      );
    });

    test('the exports hold every row of the filter, as the pages do, streamed as NDJSON and CSV', async () => {
      const filter = `key=${a.id}`;
      const paged = await rows(`${filter}&limit=200`);
      const ndjson = await server.admin(admin.token, `/requests?${filter}&format=ndjson`);
      assert.equal(ndjson.status, 200);
      assert.equal(ndjson.headers.get('content-type'), 'application/x-ndjson');
      assert.match(
        ndjson.headers.get('content-disposition') ?? '',
        /^attachment; filename="requests-.+\.ndjson"$/,
      );
      const exported = ndjson.text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as AdminLoggedRequest);
      assert.deepEqual(exported, paged);
      const csv = await server.admin(admin.token, `/requests?${filter}&format=csv`);
      assert.equal(csv.status, 200);
      assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
      const records = parse(csv.text, { columns: true }) as Record<string, string>[];
      assert.deepEqual(
        records.map((record) => [record.requestId, record.status, record.errorMessage]),
        paged.map((row) => [row.requestId, String(row.status), row.errorMessage ?? '']),
      );
    });

    test('no row, page or export holds a key, a token or a cookie; a credential in a path is redacted', async () => {
      const pasted = await server.call(`/v1/pets/${a.key}`, { headers: bearer(a.key) });
      const row = (await rows(`requestId=${pasted.headers.get('x-request-id')}`))[0];
      assert.equal(row?.path, '/v1/pets/[redacted]');
      // Percent-encoded, and in a user agent.
      const encoded = await server.call(`/v1/pets/${a.key.replaceAll('_', '%5F')}`, {
        headers: { ...bearer(a.key), 'user-agent': `my-script key=${a.key}` },
      });
      const encodedRow = (await rows(`requestId=${encoded.headers.get('x-request-id')}`))[0];
      assert.equal(encodedRow?.path, '/v1/pets/[redacted]');
      assert.equal(encodedRow?.userAgent, 'my-script key=[redacted]');
      // A key sent as the request's id is not echoed, so no row is filed under it.
      const asId = await server.call('/v1/categories', {
        headers: { ...bearer(a.key), 'x-request-id': a.key },
      });
      assert.notEqual(asId.headers.get('x-request-id'), a.key);
      assert.equal((await rows(`requestId=${asId.headers.get('x-request-id')}`)).length, 1);
      const everything = [
        JSON.stringify(await rows('limit=200')),
        (await server.admin(admin.token, '/requests?format=csv')).text,
        JSON.stringify((await server.call('/v1/key/requests?limit=200', { headers: bearer(a.key) })).body),
        await server.storedText(),
      ].join('\n');
      for (const secret of server.issuedKeys) assert.ok(!everything.includes(secret), 'a credential leaked');
      assert.ok(!everything.includes(a.key.slice(8)), 'not even its random part');
    });

    test('a stranger without a key leaves ten rows a second, the rest counted; a key leaves every row', async () => {
      // A second of its own on the fake clock: the rows of the requests before are in earlier ones.
      clock.advance(1_000);
      const stranger = { headers: { authorization: 'Bearer ps_live_notakeyatall', 'user-agent': 'flood' } };
      const strangerIds: string[] = [];
      for (let index = 0; index < 40; index += 1) {
        const answer = await server.call('/v1/categories', stranger);
        assert.equal(answer.status, 401);
        strangerIds.push(answer.headers.get('x-request-id') as string);
      }
      const keyed: string[] = [];
      for (let index = 0; index < 15; index += 1) {
        const answer = await server.call('/v1/categories', { headers: bearer(a.key) });
        keyed.push(answer.headers.get('x-request-id') as string);
      }
      const now = new Date(clock.now()).toISOString();
      const second = await rows(`from=${now}&limit=200`);
      const kept = second.filter((row) => row.keyId === null);
      assert.deepEqual(
        kept.map((row) => row.requestId).sort(),
        strangerIds.slice(0, 10).sort(),
        'the first ten of the second',
      );
      assert.deepEqual(ids(second.filter((row) => row.keyId === a.id)), [...keyed].sort());
      const metrics = (await server.call('/metrics')).text;
      const sampled = Number(
        /^petstore_request_log_rows_total\{outcome="sampled"\} (\d+)$/m.exec(metrics)?.[1],
      );
      assert.ok(sampled >= 30, metrics);
      assert.ok(
        server.logs.some((line) => line.includes('"sampled"') && line.includes('counted, not kept')),
        'a warning says so',
      );
      // The next second, the stranger is kept again.
      clock.advance(1_000);
      const later = await server.call('/v1/categories', stranger);
      assert.equal((await rows(`requestId=${later.headers.get('x-request-id')}`)).length, 1);
    });

    test('days past REQUEST_LOG_DAYS go whole, a partition at a time on PostgreSQL', async () => {
      const log = server.deps.requestLog as RequestLog;
      const at = (days: number) => Date.parse(START) - days * DAY_MS;
      log.record(logRow('old-9', at(9)));
      log.record(logRow('old-8', at(8) - (at(8) % DAY_MS)));
      log.record(logRow('kept-7', at(7) - (at(7) % DAY_MS)));
      log.record(logRow('kept-1', at(1)));
      await log.flush();
      await log.prune();
      const left = ids(await rows('limit=200&to=2026-11-30T23:59:59Z'));
      assert.deepEqual(left, ['kept-1', 'kept-7']);
      if (backend.storage === 'postgres') {
        const partitions = await server.query<{ name: string }>(
          "SELECT child.relname AS name FROM pg_inherits JOIN pg_class child ON child.oid = inhrelid JOIN pg_class parent ON parent.oid = inhparent WHERE parent.relname = 'request_log' ORDER BY 1",
        );
        const names = partitions.map((partition) => partition.name);
        assert.ok(
          !names.includes('request_log_20261122') && !names.includes('request_log_20261123'),
          names.join(),
        );
        assert.ok(
          names.includes('request_log_20261124') && names.includes('request_log_20261201'),
          names.join(),
        );
      }
    });
  });
}

describe('the request log, turned off and bounded', () => {
  test('REQUEST_LOG=off writes nothing and its operations are 404 saying so', async () => {
    for (const backend of BACKENDS) {
      const server = await startTestServer({ REQUEST_LOG: 'off' }, { backend });
      try {
        const admin = await server.createAdminToken();
        await server.call('/v1/categories');
        assertError(await server.admin(admin.token, '/requests'), 404, 'not_found');
        assertError(await server.call('/v1/key/requests'), 404, 'not_found');
        assert.match((await server.call('/v1/key/requests')).text, /REQUEST_LOG=off/);
        if (backend.storage === 'sqlite') {
          assert.throws(() => statSync(requestLogFile(server.file)), /ENOENT/);
        } else {
          const [table] = await server.query<{ name: string | null }>(
            "SELECT to_regclass('request_log')::text AS name",
          );
          assert.equal(table?.name, null);
        }
      } finally {
        await server.close();
      }
    }
  });

  test('a writer that falls behind drops new rows past 100,000 waiting and counts them; no request waits', async () => {
    const server = await startTestServer({}, { backend: SQLITE_MEMORY });
    try {
      const log = server.deps.requestLog as RequestLog;
      const base = Date.now() - HOUR_MS; // inside REQUEST_LOG_DAYS whenever the test runs
      // Recorded in one go, before any write can run: the backlog fills to its cap, and five more are dropped.
      let filled = 0;
      while (log.backlog() < 100_000) {
        log.record(logRow(`fill-${filled}`, base + filled));
        filled += 1;
      }
      for (let over = 0; over < 5; over += 1) log.record(logRow(`over-${over}`, base + filled + over));
      assert.equal(log.backlog(), 100_000);
      const metric = (text: string, name: string) =>
        Number(text.match(new RegExp(`^${name} (\\d+)$`, 'm'))?.[1] ?? Number.NaN);
      const during = (await server.call('/metrics')).text;
      assert.ok(metric(during, 'petstore_request_log_rows_total{outcome="dropped"}') >= 5, during);
      assert.ok(metric(during, 'petstore_request_log_backlog_rows') > 0, during);
      assert.equal((await server.call('/v1/categories')).status, 200, 'a request is answered meanwhile');

      await log.flush();
      assert.equal(log.backlog(), 0);
      const after = (await server.call('/metrics')).text;
      assert.equal(metric(after, 'petstore_request_log_backlog_rows'), 0);
      assert.ok(metric(after, 'petstore_request_log_rows_total{outcome="written"}') >= filled, after);
      const db = new Sqlite(requestLogFile(server.file), { readonly: true });
      try {
        const count = db.prepare('SELECT count(*) FROM requests WHERE request_id LIKE ?').pluck();
        assert.equal(count.get('fill-%'), filled);
        assert.equal(count.get('over-%'), 0);
      } finally {
        db.close();
      }
    } finally {
      await server.close();
    }
  });

  test('on SQLite, past REQUEST_LOG_MAX_MB the oldest rows go until a tenth is free; the file stays whole', async (t) => {
    const { server, base } = await prunedToOneMegabyte(t, (log, base) => {
      // About 3 MB of rows, each with a long user agent.
      for (let index = 0; index < 3_017; index += 1) {
        log.record(logRow(`row-${String(index).padStart(5, '0')}`, base + index, 'x'.repeat(256)));
      }
    });
    const file = requestLogFile(server.file);
    const db = new Sqlite(file, { readonly: true });
    try {
      const pages = db.pragma('page_count', { simple: true }) as number;
      const free = db.pragma('freelist_count', { simple: true }) as number;
      const size = db.pragma('page_size', { simple: true }) as number;
      assert.ok((pages - free) * size <= 1024 * 1024, `${(pages - free) * size} bytes in use`);
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      const kept = db
        .prepare(
          "SELECT request_id AS id, at, user_agent AS agent FROM requests WHERE request_id LIKE 'row-%' ORDER BY at",
        )
        .all() as { id: string; at: number; agent: string }[];
      assert.ok(kept.length > 500 && kept.length < 3_017, `${kept.length} kept`);
      assert.equal(kept.at(-1)?.id, 'row-03016', 'the newest stay');
      for (const row of kept) {
        assert.equal(row.at, base + Number(row.id.slice(4)), `${row.id}: the time it was sent with`);
        assert.equal(row.agent, 'x'.repeat(256));
      }
    } finally {
      db.close();
    }
  });
});

describe('the request log, flooded by strangers', () => {
  test('on SQLite, past REQUEST_LOG_MAX_MB strangers’ rows go first: a flood without a key evicts no key’s row, counted and said', async (t) => {
    const { server, base } = await prunedToOneMegabyte(t, (log, base) => {
      // A key's rows first (the oldest), then 8,000 strangers' rows refused with 401, from as many addresses
      // (so that no per-address bound helps).
      for (let index = 0; index < 300; index += 1) {
        log.record(logRow(`key-${String(index).padStart(4, '0')}`, base + index, 'x'.repeat(200)));
      }
      for (let index = 0; index < 8_000; index += 1) {
        log.record({
          ...logRow(`stranger-${index}`, base + 1_000 + index, 'x'.repeat(200), null),
          client: `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`,
          status: 401,
          errorCode: 'invalid_api_key',
        });
      }
    });
    const db = new Sqlite(requestLogFile(server.file), { readonly: true });
    try {
      const count = db.prepare('SELECT count(*) FROM requests WHERE request_id LIKE ?').pluck();
      assert.equal(count.get('key-%'), 300, 'every key row stays');
      const strangers = count.get('stranger-%') as number;
      assert.ok(strangers > 0 && strangers < 8_000, `${strangers} strangers' rows kept`);
      const oldestStranger = db
        .prepare("SELECT min(at) FROM requests WHERE request_id LIKE 'stranger-%'")
        .pluck()
        .get() as number;
      assert.equal(oldestStranger, base + 1_000 + (8_000 - strangers), 'the newest strangers stay');
    } finally {
      db.close();
    }
    const metrics = (await server.call('/metrics')).text;
    const evicted = Number(
      /^petstore_request_log_rows_total\{outcome="evicted"\} (\d+)$/m.exec(metrics)?.[1],
    );
    assert.ok(evicted > 0, metrics);
    const warning = server.logs.find((line) => line.includes('REQUEST_LOG_MAX_MB and deleted rows'));
    assert.ok(warning, 'a warning says the size bound took rows younger than REQUEST_LOG_DAYS');
    const said = JSON.parse(warning) as { evicted: number; identified: number; anonymous: number };
    assert.equal(said.identified, 0);
    assert.equal(said.anonymous, said.evicted);
  });
});

describe('the request log on PostgreSQL, its searches', () => {
  test('each search reads an index newest first and stops at its page, never sorting every matching row', async () => {
    const database = await createTestDatabase();
    const store = await openRequestLogStore({ kind: 'postgres', url: database.url, poolSize: 2 });
    const client = new pg.Client({ connectionString: database.url });
    try {
      const now = Date.now();
      await store.add(batchOf([logRow('one', now)])); // makes the table and today's partition
      await client.connect();
      // A sort of the whole match is what the planner must never need; with it priced out, one shows only
      // where no index gives the order (a search ordered by a computed column, say).
      await client.query('SET enable_sort = off');
      const pages = {
        newest: { limit: 50 },
        'a class of statuses in a day': { status: { from: 400, to: 499 }, from: now - DAY_MS, limit: 50 },
        'a key, ever': { keyId: 'key_abcdefghijkl', limit: 50 },
        'a key in an hour': { keyId: 'key_abcdefghijkl', from: now - 3_600_000, to: now, limit: 50 },
        'the page after a cursor': { before: { at: now, requestId: 'one' }, limit: 50 },
      };
      for (const [name, page] of Object.entries(pages)) {
        const { text, values } = postgresRequestLogQuery(page);
        const plan = JSON.stringify((await client.query(`EXPLAIN (FORMAT JSON) ${text}`, values)).rows);
        assert.doesNotMatch(plan, /"Node Type":"Sort"/, `${name}: ${plan}`);
        assert.match(plan, /"Scan Direction":"Backward"/, name);
      }
    } finally {
      await client.end();
      await store.close();
      await database.drop();
    }
  });
});
