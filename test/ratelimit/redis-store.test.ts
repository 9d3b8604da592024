import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { ApiError } from '../../src/errors/index.js';
import { createLogger, createOutageLog } from '../../src/log/index.js';
import { createMetrics } from '../../src/metrics/index.js';
import {
  FailoverRateLimitStore,
  MemoryRateLimitStore,
  RedisRateLimitStore,
} from '../../src/ratelimit/index.js';
import { awaitMinuteRoom, createTestRedisPrefix, REDIS_URL } from '../support/backends.js';
import { type PrivateServer, startPrivateRedis } from '../support/private-servers.js';

const logger = createLogger({ level: 'silent' });

/** Script calls (EVAL and EVALSHA) the Redis server has run since it started, from all its clients. */
async function scriptCalls(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  let calls = 0;
  for (const match of stats.matchAll(/^cmdstat_eval(?:sha)?:calls=(\d+)/gm)) calls += Number(match[1]);
  return calls;
}

describe('the Redis rate-limit store', () => {
  const { prefix, clear } = createTestRedisPrefix();
  let redis: Redis;
  let store: RedisRateLimitStore;
  before(async () => {
    redis = new Redis(REDIS_URL);
    store = new RedisRateLimitStore({ url: REDIS_URL, keyPrefix: prefix });
    await store.connect();
  });
  after(async () => {
    await store.close();
    await clear();
    redis.disconnect();
  });

  test('300 concurrent hits against 100 per minute admit exactly 100', async () => {
    await awaitMinuteRoom(redis, 5_000);
    const limits = { perMinute: 100, perDay: 100_000 };
    const decisions = await Promise.all(
      Array.from({ length: 300 }, () => store.hit('key:concurrent', limits, 0, null)),
    );
    assert.equal(decisions.filter((decision) => decision.kind === 'allowed').length, 100);
    const remaining = decisions.filter((d) => d.kind === 'allowed').map((d) => d.minute.remaining);
    assert.deepEqual(
      remaining.toSorted((a, b) => a - b),
      Array.from({ length: 100 }, (_, i) => i),
    );
  });

  test('windows follow Redis time, whatever the instance clock says', async () => {
    const [seconds] = await redis.time();
    const decision = await store.hit('key:clock', { perMinute: 5, perDay: 10 }, 0, null);
    assert.equal(decision.minute.resetAt % 60_000, 0);
    assert.ok(
      Math.abs(decision.now - Number(seconds) * 1000) < 2_000,
      'now is Redis time, not the 0 passed in',
    );
    assert.equal(decision.day.resetAt % 86_400_000, 0);
  });

  test('every key expires with its window', async () => {
    await store.hit('key:ttl', { perMinute: 5, perDay: 10 }, 0, null);
    const keys = await redis.keys(`${prefix}{key:ttl}*`);
    assert.equal(keys.length, 2);
    for (const key of keys) {
      const ttl = await redis.pttl(key);
      const limit = key.includes(':m:') ? 61_000 : 86_401_000;
      assert.ok(ttl > 0 && ttl <= limit, `${key} expires in ${ttl} ms`);
    }
  });

  test('refusals ban the key; a known ban costs no round trip; unban lifts it', async () => {
    await awaitMinuteRoom(redis, 5_000);
    const limits = { perMinute: 2, perDay: 100 };
    const ban = { after: 3, durationMs: 60_000 };
    const kinds: string[] = [];
    for (let i = 0; i < 6; i += 1) kinds.push((await store.hit('key:ban', limits, 0, ban)).kind);
    assert.deepEqual(kinds, ['allowed', 'allowed', 'limited', 'limited', 'limited', 'banned']);
    const banKey = `${prefix}{key:ban}:ban`;
    assert.ok((await redis.pttl(banKey)) > 55_000, 'the ban lives in Redis, with its duration');

    // Delete the ban behind the store's back: an instance that knows of the ban does not ask Redis again.
    await redis.del(banKey);
    assert.equal((await store.hit('key:ban', limits, 0, ban)).kind, 'banned');

    await store.unban('key:ban');
    assert.equal((await store.hit('key:ban', limits, 0, ban)).kind, 'limited');
  });
});

describe('batched decisions', () => {
  // A Redis of the suite's own: it counts the script calls of this store and nothing else.
  let server: PrivateServer;
  let redis: Redis;
  let store: RedisRateLimitStore;
  const prefix = 'petstore:rl:';
  before(async () => {
    server = await startPrivateRedis();
    redis = new Redis(server.url);
    store = new RedisRateLimitStore({ url: server.url });
    await store.connect();
  });
  after(async () => {
    await store.close();
    redis.disconnect();
    await server.stop();
  });

  test("a key's requests of one turn are one script call, decided in order as if one by one", async () => {
    await awaitMinuteRoom(redis, 5_000);
    const limits = { perMinute: 2, perDay: 100 };
    const ban = { after: 3, durationMs: 60_000 };
    const subject = `${prefix}{key:batch}`;
    const turn = async (requests: number) =>
      (await Promise.all(Array.from({ length: requests }, () => store.hit('key:batch', limits, 0, ban)))).map(
        (d) => [d.kind, d.minute.remaining, d.kind === 'limited' && d.banStarted],
      );
    const calls = await scriptCalls(redis);
    assert.deepEqual(await turn(3), [
      ['allowed', 1, false],
      ['allowed', 0, false],
      ['limited', 0, false],
    ]);
    const [refusals] = await redis.keys(`${subject}:rm:*`);
    assert.equal(await redis.get(refusals ?? ''), '1', 'the refusal is counted towards a ban');
    // The second turn's refusals add to the first's: the second of them reaches 3 and starts the ban.
    assert.deepEqual(await turn(7), [
      ['limited', 0, false],
      ['limited', 0, true],
      ...Array.from({ length: 5 }, () => ['banned', 0, false]),
    ]);
    assert.equal((await scriptCalls(redis)) - calls, 2, 'two turns of requests, two script calls');
    assert.ok((await redis.pttl(`${subject}:ban`)) > 55_000, 'the ban is in Redis');
    assert.deepEqual(await redis.keys(`${subject}:r*`), [], 'the refusals that led to it are forgotten');
    const [minuteKey] = await redis.keys(`${subject}:m:*`);
    assert.equal(await redis.get(minuteKey ?? ''), '2', 'only the admitted requests are counted');
  });

  test('a flood of one key is decided in slices of 1000 requests, in order and exactly', async () => {
    await awaitMinuteRoom(redis, 5_000);
    const limits = { perMinute: 2_000, perDay: 100_000 };
    const calls = await scriptCalls(redis);
    const decisions = await Promise.all(
      Array.from({ length: 2_500 }, () => store.hit('key:flood', limits, 0, null)),
    );
    assert.equal((await scriptCalls(redis)) - calls, 3, '2,500 requests, three script calls');
    assert.deepEqual(
      decisions.map((d) => (d.kind === 'allowed' ? d.minute.remaining : d.kind)),
      [...Array.from({ length: 2_000 }, (_, i) => 1_999 - i), ...Array(500).fill('limited')],
    );
  });

  test('requests of one subject under different limits in one turn are each judged by their own', async () => {
    await awaitMinuteRoom(redis, 5_000);
    const three = { perMinute: 3, perDay: 100 };
    const five = { perMinute: 5, perDay: 100 };
    const decisions = await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.hit('key:terms', i % 2 === 0 ? three : five, 0, null)),
    );
    // Each request is judged under its own limit against what was counted before it. 5 are admitted in all
    // (all judged under 3 would admit 3), and none under the limit of 3 once 3 are counted (all judged
    // under 5 would admit one at a count of 4 or 5, and its remaining would repeat 0).
    const remaining = (limit: number) =>
      decisions
        .filter((d) => d.minute.limit === limit && d.kind === 'allowed')
        .map((d) => d.minute.remaining);
    assert.equal(remaining(3).length + remaining(5).length, 5);
    for (const limit of [3, 5]) assert.equal(new Set(remaining(limit)).size, remaining(limit).length);
  });
});

describe('when Redis is unreachable', () => {
  const limits = { perMinute: 2, perDay: 100 };
  const unreachable = () => new RedisRateLimitStore({ url: 'redis://127.0.0.1:1', commandTimeoutMs: 200 });

  test("RATE_LIMIT_FAIL=open serves on this instance's own limits, counts each request, and says so once", async () => {
    const metrics = createMetrics();
    const lines: string[] = [];
    const captured = createLogger({
      level: 'info',
      destination: new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk).trim());
          done();
        },
      }),
    });
    const store = new FailoverRateLimitStore({
      primary: unreachable(),
      fallback: new MemoryRateLimitStore(),
      mode: 'open',
      outage: createOutageLog({ logger: captured, dependency: 'Redis', address: 'redis://127.0.0.1:1' }),
      failOpenCounter: metrics.rateLimitFailOpen,
    });
    const kinds = [];
    // One instant for the three: read anew, a minute that ends between two hits would reset the window.
    const now = Date.now();
    for (let i = 0; i < 3; i += 1) kinds.push((await store.hit('key:x', limits, now, null)).kind);
    assert.deepEqual(kinds, ['allowed', 'allowed', 'limited'], 'still limited, per instance');
    assert.equal((await metrics.rateLimitFailOpen.get()).values[0]?.value, 3);
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as { msg: string }).msg),
      ['Redis at redis://127.0.0.1:1 is unreachable: not connected'],
      "one line, in our words rather than the client's, and no stack",
    );
    await store.close();
  });

  test('RATE_LIMIT_FAIL=closed refuses with 503 service_unavailable', async () => {
    const store = new FailoverRateLimitStore({
      primary: unreachable(),
      fallback: new MemoryRateLimitStore(),
      mode: 'closed',
      outage: createOutageLog({ logger, dependency: 'Redis', address: 'redis://127.0.0.1:1' }),
      failOpenCounter: createMetrics().rateLimitFailOpen,
    });
    await assert.rejects(store.hit('key:x', limits, Date.now(), null), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.status, 503);
      assert.equal(error.code, 'service_unavailable');
      return true;
    });
    await store.close();
  });
});
