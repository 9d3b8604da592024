import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FakeClock } from '../../src/clock/index.js';
import { assertError } from '../support/assertions.js';
import { BACKENDS } from '../support/backends.js';
import { startTestServer, type TestServer } from '../support/server.js';

interface Bucket {
  start: string;
  success: number;
  clientErrors: number;
  rateLimited: number;
  serverErrors: number;
}
interface Series {
  key: string | null;
  granularity: string;
  from: string;
  to: string;
  buckets: Bucket[];
}
interface KeyUse extends Omit<Bucket, 'start'> {
  keyId: string;
  name: string;
  plan: string;
  used: number;
  perMinute: number;
  perDay: number;
  dayShare: number;
}

/** Half past ten: the hour bucket starts at 10:00, the day's on the 1st. */
const START = '2026-12-01T10:30:00.000Z';

for (const backend of BACKENDS) {
  describe(`usage and the audit log in the admin API (${backend.name})`, () => {
    let server: TestServer;
    let clock: FakeClock;
    let admin: string;

    before(async () => {
      clock = new FakeClock(START);
      server = await startTestServer(
        {},
        { backend, clock, configFile: { plans: { free: { perMinute: 9, perDay: 9 } } } },
      );
      admin = (await server.createAdminToken()).token;
    });
    after(() => server.close());

    const get = (path: string) => server.admin(admin, path);

    test('requests per hour and per day by outcome, of one key and of all, every bucket present', async () => {
      const { id, key } = await server.createKey({ plan: 'free', name: 'charted' });
      const as = { headers: { authorization: `Bearer ${key}` } };
      for (let i = 0; i < 3; i += 1) assert.equal((await server.call('/v1/categories', as)).status, 200);
      assert.equal((await server.call('/v1/pets/999999', as)).status, 404);
      clock.advance(3_600_000);
      for (let i = 0; i < 5; i += 1) assert.equal((await server.call('/v1/categories', as)).status, 200);
      const limited = await server.call('/v1/categories', as);
      assert.equal(limited.status, 429, 'the day limit of 9 is spent (3 + 1 + 5)');

      const hourly = (await get(`/usage?key=${id}`)).body as Series;
      assert.equal(hourly.key, id);
      assert.equal(hourly.granularity, 'hour');
      assert.equal(hourly.buckets.length, 48);
      assert.equal(hourly.from, '2026-11-29T12:00:00.000Z');
      assert.equal(hourly.to, '2026-12-01T12:00:00.000Z');
      assert.deepEqual(hourly.buckets.slice(-2), [
        { start: '2026-12-01T10:00:00.000Z', success: 3, clientErrors: 1, rateLimited: 0, serverErrors: 0 },
        { start: '2026-12-01T11:00:00.000Z', success: 5, clientErrors: 0, rateLimited: 1, serverErrors: 0 },
      ]);
      assert.ok(hourly.buckets.slice(0, -2).every((bucket) => bucket.success + bucket.clientErrors === 0));

      const daily = (await get(`/usage?key=${id}&granularity=day`)).body as Series;
      assert.equal(daily.buckets.length, 90);
      assert.deepEqual(daily.buckets.at(-1), {
        start: '2026-12-01T00:00:00.000Z',
        success: 8,
        clientErrors: 1,
        rateLimited: 1,
        serverErrors: 0,
      });

      const all = (await get('/usage?from=2026-12-01T10:59:59Z&to=2026-12-01T11:00:00%2B00:00'))
        .body as Series;
      assert.equal(all.key, null);
      assert.deepEqual(
        all.buckets.map((bucket) => bucket.start),
        ['2026-12-01T10:00:00.000Z', '2026-12-01T11:00:00.000Z'],
      );
      assert.ok((all.buckets[1] as Bucket).success >= 5, 'every key summed');

      const top = (await get('/usage/keys?limit=1000')).body as KeyUse[];
      const mine = top.find((use) => use.keyId === id);
      assert.deepEqual(mine, {
        keyId: id,
        name: 'charted',
        plan: 'free',
        success: 8,
        clientErrors: 1,
        rateLimited: 1,
        serverErrors: 0,
        used: 9,
        perMinute: 9,
        perDay: 9,
        dayShare: 1,
      });
      assert.deepEqual((await get('/usage/keys?day=2026-11-30')).body, [], 'nothing the day before');
      const view = (await get(`/keys/${id}`)).body as { effectiveLimits: unknown };
      assert.deepEqual(view.effectiveLimits, { perMinute: 9, perDay: 9 });
    });

    test('a range that is backwards, too long or impossible is 400; an unknown key 404', async () => {
      for (const query of [
        'from=2026-12-02T00:00:00Z&to=2026-12-01T00:00:00Z',
        'from=2026-01-01T00:00:00Z&to=2026-12-01T00:00:00Z',
        'granularity=day&from=2000-01-01T00:00:00Z',
        'to=2026-02-30T00:00:00Z',
        'granularity=week',
        'key=nope',
      ]) {
        assertError(await get(`/usage?${query}`), 400, 'validation_failed');
      }
      assertError(await get('/usage/keys?day=2026-02-30'), 400, 'validation_failed');
      assertError(await get('/usage?key=key_AAAAAAAAAAAA'), 404, 'not_found');
    });

    test('the audit log filters by actor, target and time, newest first, paged with before', async () => {
      const maker = await server.createAdminToken('auditor');
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        clock.advance(60_000);
        const made = await server.admin(maker.token, '/keys', { method: 'POST', json: { plan: 'free' } });
        assert.equal(made.status, 201, made.text);
        ids.push((made.body as { id: string }).id);
      }
      type Event = { id: number; target: string; at: string; actor: string };
      const newest = (await get(`/audit?actor=${maker.id}&order=desc&limit=3`)).body as Event[];
      assert.deepEqual(
        newest.map((event) => event.target),
        ids.slice(2).reverse(),
      );
      const older = (await get(`/audit?actor=${maker.id}&order=desc&before=${newest.at(-1)?.id}`))
        .body as Event[];
      assert.deepEqual(
        older.map((event) => event.target),
        ids.slice(0, 2).reverse(),
      );
      const second = (newest.at(-1) as Event).at;
      const inTime = (await get(`/audit?actor=${maker.id}&from=${second}&to=${(newest[0] as Event).at}`))
        .body as Event[];
      assert.deepEqual(
        inTime.map((event) => event.target),
        ids.slice(2, 4),
        'from is inclusive, to is not',
      );
      assert.deepEqual((await get('/audit?actor=nobody')).body, []);
      assertError(await get('/audit?from=2026-02-30T00:00:00Z'), 400, 'validation_failed');
      assertError(await get('/audit?order=sideways'), 400, 'validation_failed');
    });
  });
}
