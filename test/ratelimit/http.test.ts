import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';
import { FakeClock } from '../../src/clock/index.js';
import { generateKey } from '../../src/keys/index.js';
import { MemoryRateLimitStore } from '../../src/ratelimit/index.js';
import { assertError, assertRateLimitHeaders } from '../support/assertions.js';
import { runCli } from '../support/process.js';
import { getStatus, request, startTestServer, type TestServer } from '../support/server.js';

/** A fake clock 10 s into a minute that starts in the future, so Reset values are real future times. */
function futureClock(): FakeClock {
  const nextMinute = Math.ceil(Date.now() / 60_000) * 60_000 + 60_000;
  return new FakeClock(nextMinute + 10_000);
}

describe('rate limits over HTTP', () => {
  let server: TestServer;
  let clock: FakeClock;
  before(async () => {
    clock = futureClock();
    server = await startTestServer({}, { clock });
  });
  after(() => server.close());

  const as = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });

  test('a free key gets exactly 60 answers in a minute, Remaining 59..0, then 429', async () => {
    const { key } = await server.createKey({ plan: 'free' });
    const minuteEnd = (clock.now() - (clock.now() % 60_000) + 60_000) / 1000;
    for (let i = 1; i <= 60; i += 1) {
      const response = await server.call('/v1/categories', as(key));
      assert.equal(response.status, 200);
      const headers = assertRateLimitHeaders(response);
      assert.deepEqual(headers, { limit: 60, remaining: 60 - i, reset: minuteEnd });
    }
    const refused = await server.call('/v1/categories', as(key));
    assertError(refused, 429, 'rate_limit_exceeded');
    assert.equal(refused.headers.get('retry-after'), '50');
    assert.deepEqual(assertRateLimitHeaders(refused), { limit: 60, remaining: 0, reset: minuteEnd });

    clock.advance(50_000);
    assert.equal((await server.call('/v1/categories', as(key))).status, 200, 'the next minute admits again');
  });

  test('an enterprise key with 20/min and 25/day: once the day is spent, 429 until the next UTC midnight', async () => {
    // Two minutes of this test must fall in one UTC day.
    if (86_400_000 - (clock.now() % 86_400_000) < 5 * 60_000) clock.advance(10 * 60_000);
    const { key } = await server.createKey({ plan: 'enterprise', limits: { perMinute: 20, perDay: 25 } });
    const midnight = (clock.now() - (clock.now() % 86_400_000) + 86_400_000) / 1000;
    for (let i = 1; i <= 20; i += 1) assert.equal((await server.call('/v1/categories', as(key))).status, 200);
    clock.advance(60_000);
    for (let i = 1; i <= 5; i += 1) {
      const response = await server.call('/v1/categories', as(key));
      assert.equal(response.status, 200);
      // 20 - i left in the minute, 5 - i in the day: the day binds.
      assert.deepEqual(assertRateLimitHeaders(response), { limit: 25, remaining: 5 - i, reset: midnight });
    }
    const refused = await server.call('/v1/categories', as(key));
    assertError(refused, 429, 'rate_limit_exceeded');
    assert.equal(refused.headers.get('x-ratelimit-reset'), String(midnight));
    assert.equal(refused.headers.get('retry-after'), String(Math.ceil(midnight - clock.now() / 1000)));
  });

  test('300 concurrent requests against a 100/min key admit exactly 100', async () => {
    const { key } = await server.createKey({
      plan: 'enterprise',
      limits: { perMinute: 100, perDay: 100_000 },
    });
    const answers = await Promise.all(
      Array.from({ length: 300 }, () => server.call('/v1/categories', as(key))),
    );
    const statuses = answers.map((response) => response.status);
    assert.equal(statuses.filter((status) => status === 200).length, 100);
    assert.equal(statuses.filter((status) => status === 429).length, 200);
    const remaining = answers
      .filter((r) => r.status === 200)
      .map((r) => Number(r.headers.get('x-ratelimit-remaining')));
    assert.deepEqual(
      remaining.toSorted((a, b) => a - b),
      Array.from({ length: 100 }, (_, i) => i),
    );
  });

  test('a key that keeps sending after 429 is banned; others are not; the ban ends on time', async () => {
    const { key, id } = await server.createKey({ plan: 'free' });
    const { key: bystander } = await server.createKey({ plan: 'free' });
    clock.advance(60_000 - (clock.now() % 60_000));
    for (let i = 0; i < 60; i += 1) assert.equal((await server.call('/v1/categories', as(key))).status, 200);
    for (let i = 0; i < 60; i += 1) {
      assertError(await server.call('/v1/categories', as(key)), 429, 'rate_limit_exceeded');
    }
    const banStart = clock.now();
    const banned = await server.call('/v1/categories', as(key));
    assertError(banned, 429, 'api_key_banned');
    assert.equal(banned.headers.get('retry-after'), '900');
    assert.equal(banned.headers.get('x-ratelimit-remaining'), '0');
    assert.ok(
      server.logs.some((line) => line.includes('API key banned') && line.includes(id)),
      'the ban is logged',
    );

    assert.equal(
      (await server.call('/v1/categories', as(bystander))).status,
      200,
      'other keys are unaffected',
    );

    clock.set(banStart + 900_000 - 1);
    const stillBanned = await server.call('/v1/categories', as(key));
    assertError(stillBanned, 429, 'api_key_banned');
    assert.equal(stillBanned.headers.get('retry-after'), '1');
    clock.set(banStart + 900_000);
    assert.equal((await server.call('/v1/categories', as(key))).status, 200, 'the ban ends on time');
  });

  test('`keys unban` lifts a ban on the running server within 5 s', async () => {
    const { key, id } = await server.createKey({ plan: 'free' });
    clock.advance(60_000 - (clock.now() % 60_000));
    for (let i = 0; i < 121; i += 1) await server.call('/v1/categories', as(key));
    assertError(await server.call('/v1/categories', as(key)), 429, 'api_key_banned');

    const result = await runCli(['keys', 'unban', id], { DATABASE_URL: `sqlite:${server.file}` });
    assert.equal(result.code, 0, result.stderr);
    const started = Date.now();
    let answer = await server.call('/v1/categories', as(key));
    while (answer.body !== undefined && (answer.body as { code?: string }).code === 'api_key_banned') {
      assert.ok(Date.now() - started < 5_000, 'unbanned within 5 s');
      await sleep(100);
      answer = await server.call('/v1/categories', as(key));
    }
    assertError(answer, 429, 'rate_limit_exceeded');
    clock.advance(60_000);
    assert.equal((await server.call('/v1/categories', as(key))).status, 200);
  });
});

describe('requests without a valid key', () => {
  test('are limited per client address by the anonymous policy, and carry its headers', async (t) => {
    const clock = futureClock();
    const server = await startTestServer({}, { clock });
    t.after(() => server.close());
    for (let i = 1; i <= 60; i += 1) {
      const response = await request(`${server.url}/v1/categories`);
      assertError(response, 401, 'missing_api_key');
      assert.equal(assertRateLimitHeaders(response).remaining, 60 - i);
    }
    const limited = await request(`${server.url}/v1/categories`, {
      headers: { authorization: `Bearer ${generateKey('production')}`, 'x-forwarded-for': '203.0.113.9' },
    });
    assertError(limited, 429, 'rate_limit_exceeded');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal(
      (await server.call('/v1/categories')).status,
      200,
      'a valid key from the same address is not limited',
    );
  });

  test('with TRUST_PROXY the address comes from X-Forwarded-For', async (t) => {
    const clock = futureClock();
    const server = await startTestServer({ TRUST_PROXY: 'true' }, { clock });
    t.after(() => server.close());
    const from = (address: string) =>
      request(`${server.url}/v1/categories`, { headers: { 'x-forwarded-for': address } });
    for (let i = 0; i < 60; i += 1) await from('198.51.100.1');
    assertError(await from('198.51.100.1'), 429, 'rate_limit_exceeded');
    const other = await from('198.51.100.2');
    assertError(other, 401, 'missing_api_key');
    assert.equal(other.headers.get('x-ratelimit-remaining'), '59');
  });

  test('100,000 distinct invalid keys: all 401 or 429, no state per key, heap growth under 20 MB', async (t) => {
    const store = new MemoryRateLimitStore();
    const server = await startTestServer(
      { LOG_LEVEL: 'silent' },
      { rateLimitStore: store, clock: futureClock() },
    );
    t.after(() => server.close());
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    // Real HTTP over keep-alive sockets: Fastify's inject() keeps per-call state and would measure itself.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    t.after(() => agent.destroy());
    const send = (token: string) =>
      getStatus(`${server.url}/v1/categories`, { authorization: `Bearer ${token}` }, agent);
    const statuses = new Map<number, number>();
    /** Sends `count` requests, 16 at a time; half well-formed keys with valid checksums, half random strings. */
    async function flood(count: number): Promise<void> {
      for (let sent = 0; sent < count; sent += 16) {
        const batch = Array.from({ length: 16 }, (_, i) =>
          send(
            (sent + i) % 2 === 0
              ? generateKey('production')
              : `ps_live_${Math.random().toString(36).slice(2)}`,
          ),
        );
        for (const status of await Promise.all(batch)) statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }
    await flood(2_000);
    gc();
    const before = process.memoryUsage().heapUsed;
    statuses.clear();
    await flood(100_000);
    gc();
    const growth = process.memoryUsage().heapUsed - before;
    assert.ok(
      [...statuses.keys()].every((status) => status === 401 || status === 429),
      String([...statuses]),
    );
    assert.equal(statuses.get(429), 100_000, 'past the address limit every answer is 429');
    assert.ok(growth < 20 * 1024 * 1024, `heap grew ${(growth / 1024 / 1024).toFixed(1)} MB`);
    assert.equal(store.size, 1, 'one counter, for the address; none per invented key');
  });
});
