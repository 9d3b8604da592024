import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { FakeClock } from '../../src/clock/index.js';
import type { KeyInfo } from '../../src/contract/index.js';
import { assertError, assertRateLimitHeaders } from '../support/assertions.js';
import { awaitRedisMinuteRoom, BACKENDS } from '../support/backends.js';
import { startTestServer, type TestServer } from '../support/server.js';

// Before the deprecated endpoint's sunset (2027-06-30), whatever day the suite runs.
const START = '2026-12-01T10:00:00.000Z';

for (const backend of BACKENDS) {
  describe(`GET /v1/key (${backend.name})`, () => {
    let server: TestServer;
    let clock: FakeClock;
    before(async () => {
      clock = new FakeClock(START);
      server = await startTestServer(
        {},
        { backend, clock, configFile: { ban: { after: 2, durationSeconds: 900 } } },
      );
    });
    after(() => server.close());

    const as = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });
    const info = async (key: string) => {
      const response = await server.call('/v1/key', as(key));
      assert.equal(response.status, 200, response.text);
      return { response, body: response.body as KeyInfo };
    };

    test('shows the calling key, needs no scope and spends no quota; it answers while the key is limited', async () => {
      if (backend.limiter === 'redis') await awaitRedisMinuteRoom(15_000);
      const expiresAt = new Date(clock.now() + 86_400_000).toISOString();
      const { id, key } = await server.createKey({
        plan: 'enterprise',
        name: 'dashboard',
        limits: { perMinute: 3, perDay: 1000 },
        scopes: ['pets:read'],
        expiresAt,
      });
      for (let call = 0; call < 5; call += 1) {
        const { response, body } = await info(key);
        assert.equal(response.headers.get('x-ratelimit-remaining'), '3', 'nothing spent');
        assert.equal(response.headers.get('cache-control'), 'no-store');
        assert.deepEqual(
          { ...body, usage: [], lastUsedAt: null, limits: null },
          {
            id,
            name: 'dashboard',
            plan: 'enterprise',
            scopes: ['pets:read'],
            createdAt: new Date(START).toISOString(),
            expiresAt,
            limits: null,
            ban: { banned: false, until: null },
            usage: [],
            lastUsedAt: null,
            replacedBy: null,
            deprecatedCalls: [],
          },
        );
        assert.deepEqual(
          [
            body.limits.minute.limit,
            body.limits.minute.remaining,
            body.limits.day.limit,
            body.limits.day.remaining,
          ],
          [3, 3, 1000, 1000],
        );
      }
      for (let call = 0; call < 3; call += 1)
        assert.equal((await server.call('/v1/pets', as(key))).status, 200);
      assertError(await server.call('/v1/pets', as(key)), 429, 'rate_limit_exceeded');
      const { response, body } = await info(key);
      assertRateLimitHeaders(response);
      assert.equal(response.headers.get('x-ratelimit-remaining'), '0');
      assert.equal(body.limits.minute.remaining, 0);
      assert.equal(body.limits.day.remaining, 1000 - 3);
      // One more refusal makes two in the window: banned, and then not even this answers.
      assertError(await server.call('/v1/pets', as(key)), 429, 'rate_limit_exceeded');
      const banned = await server.call('/v1/key', as(key));
      assertError(banned, 429, 'api_key_banned');
      assert.ok(banned.headers.get('retry-after'));
    });

    test('counts the last 7 days of use by outcome, last use and calls to deprecated operations', async () => {
      const { id, key } = await server.createKey({ plan: 'pro', name: 'counted' });
      // Made with the server's own key: only the requests below count for this one.
      const category = await server.post('/v1/categories', { name: `Counted ${id}` });
      const categoryId = (category.body as { id: number }).id;
      const pet = await server.post('/v1/pets', { name: 'Counted', categoryId });
      assert.equal(pet.status, 201);
      const petId = (pet.body as { id: number }).id;
      const sent = [
        await server.call('/v1/pets', as(key)),
        await server.call(`/v1/pets/${petId}`, as(key)),
        await server.call(`/v1/pets/${petId}`, as(key)),
        await server.call('/v1/pets/999999', as(key)),
        await server.call('/v1/pets?status=lost', as(key)),
        // The list is written past Fastify's onSend hooks (sendPrepared): counted all the same.
        await server.call('/v1/categories', as(key)),
        await server.call('/v1/categories', { method: 'HEAD', ...as(key) }),
      ];
      assert.deepEqual(
        sent.map((response) => response.status),
        [200, 200, 200, 404, 400, 200, 200],
      );
      // Counted in memory first: the answer adds what this instance has not flushed yet.
      const first = (await info(key)).body;
      assert.equal(first.usage.length, 7);
      assert.equal(first.usage[6]?.day, START.slice(0, 10), 'today last');
      assert.equal(first.usage[0]?.day, '2026-11-25', 'six days back first');
      assert.deepEqual(first.usage[6], {
        day: '2026-12-01',
        success: 5,
        clientErrors: 2,
        rateLimited: 0,
        serverErrors: 0,
      });
      assert.ok(first.usage.slice(0, 6).every((day) => day.success + day.clientErrors === 0));
      assert.equal(first.lastUsedAt, new Date(START).toISOString());
      assert.deepEqual(first.deprecatedCalls, [
        {
          operationId: 'getPetById',
          method: 'GET',
          path: '/pets/{petId}',
          // The 404 called it too.
          calls: 3,
          lastCalledAt: new Date(START).toISOString(),
          sunsetAt: '2027-06-30',
        },
      ]);
      // Flushed to storage, the same counts (and the GET /v1/key before, now counted too).
      await server.deps.recorder.flush();
      const stored = await server.query<{ success: number; client_errors: number }>(
        `SELECT success, client_errors FROM key_usage WHERE key_id = '${id}'`,
      );
      assert.deepEqual(
        stored.map((row) => [Number(row.success), Number(row.client_errors)]),
        [[6, 2]],
      );
      const second = (await info(key)).body;
      assert.equal(second.usage[6]?.success, 6);
      assert.equal(second.deprecatedCalls[0]?.calls, 3);
      // A day later the counts move down the list.
      clock.advance(86_400_000);
      const tomorrow = (await info(key)).body;
      assert.equal(tomorrow.usage[5]?.success, 7);
      assert.equal(tomorrow.usage[6]?.success, 0);
      clock.set(START);
    });

    // The write of a flush is held at its first row by a lock another connection takes: a real stall of the
    // database, as under load, for as long as the test wants.
    if (backend.storage === 'postgres') {
      test('counts a flush is writing stay in the answer until they are stored, and are not counted twice after', async () => {
        const { key } = await server.createKey({ plan: 'pro', name: 'in flight' });
        for (let call = 0; call < 3; call += 1) await server.call('/v1/categories', as(key));
        const blocker = new pg.Client({ connectionString: server.env.DATABASE_URL });
        await blocker.connect();
        try {
          await blocker.query('BEGIN');
          await blocker.query('LOCK TABLE key_usage IN EXCLUSIVE MODE');
          const flushed = server.deps.recorder.flush();
          const reading = Promise.all([info(key), server.call('/v1/key/usage', as(key))]);
          // The flush cannot commit until the lock goes; the reads arrive meanwhile. (On a machine so slow that
          // they arrive after the rollback, they see the counts stored: the same answer.)
          await sleep(500);
          await blocker.query('ROLLBACK');
          const [first, history] = await reading;
          await flushed;
          assert.equal(first.body.usage[6]?.success, 3);
          const hours = (history.body as { hours: { success: number }[] }).hours;
          // The two reads ran side by side: neither is counted before it is answered.
          assert.equal(
            hours.reduce((sum, hour) => sum + hour.success, 0),
            3,
          );
        } finally {
          await blocker.end();
        }
        // Stored now: the same counts, with the two reads above.
        assert.equal((await info(key)).body.usage[6]?.success, 5);
      });
    }

    test('an expired key is refused, and no key at all is 401', async () => {
      const key = await server.insertKey({ expiresAt: new Date(clock.now() - 1).toISOString() });
      assertError(await server.call('/v1/key', as(key)), 401, 'api_key_expired');
      assertError(await server.call('/v1/key', { headers: { authorization: '' } }), 401, 'missing_api_key');
    });
  });
}
