import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { awaitLocalMinuteRoom, awaitMinuteRoom, BACKENDS, REDIS_URL } from '../support/backends.js';
import { request, startTestServer, type TestServer } from '../support/server.js';

/** The value of one series of a Prometheus text exposition, 0 when it is absent. */
function seriesValue(text: string, series: string): number {
  const line = text.split('\n').find((entry) => entry.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

for (const backend of BACKENDS) {
  describe(`/metrics counts what was sent (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({}, { backend });
    });
    after(() => server.close());

    test('requests by operation, method and status, durations, rate-limit outcomes, storage and Redis calls', async () => {
      // The trial stays in one minute window of the limiter's clock: Redis's, or this machine's.
      if (backend.limiter === 'redis') {
        const redis = new Redis(REDIS_URL);
        await awaitMinuteRoom(redis, 15_000);
        redis.disconnect();
      } else {
        await awaitLocalMinuteRoom(15_000);
      }
      const before = (await request(`${server.url}/metrics`)).text;
      const { key } = await server.createKey({ plan: 'enterprise', limits: { perMinute: 5, perDay: 100 } });
      const as = { authorization: `Bearer ${key}` };
      const sent = { list: 0, create: 0, anonymous: 0, notFound: 0, limited: 0 };
      for (let i = 0; i < 3; i += 1) {
        assert.equal((await server.call('/v1/categories', { headers: as })).status, 200);
        sent.list += 1;
      }
      for (let i = 0; i < 2; i += 1) {
        assert.equal((await server.post('/v1/categories', { name: `Counted ${i}` }, as)).status, 201);
        sent.create += 1;
      }
      for (let i = 0; i < 4; i += 1) {
        assert.equal((await server.call('/v1/categories', { headers: as })).status, 429);
        sent.limited += 1;
      }
      for (let i = 0; i < 2; i += 1) {
        assert.equal((await server.call('/v1/pets', { headers: { authorization: '' } })).status, 401);
        sent.anonymous += 1;
      }
      assert.equal((await server.call('/v1/no/such/path')).status, 404);
      sent.notFound += 1;

      const after = (await request(`${server.url}/metrics`)).text;
      const delta = (series: string) => seriesValue(after, series) - seriesValue(before, series);
      const requests = (operation: string, method: string, status: number) =>
        delta(`petstore_http_requests_total{operation="${operation}",method="${method}",status="${status}"}`);
      assert.equal(requests('listCategories', 'GET', 200), sent.list);
      assert.equal(requests('listCategories', 'GET', 429), sent.limited);
      assert.equal(requests('createCategory', 'POST', 201), sent.create);
      assert.equal(requests('listPets', 'GET', 401), sent.anonymous);
      assert.equal(requests('none', 'GET', 404), sent.notFound);
      assert.equal(
        delta('petstore_http_request_duration_seconds_count{operation="listCategories"}'),
        sent.list + sent.limited,
      );
      assert.ok(delta('petstore_http_request_duration_seconds_sum{operation="listCategories"}') > 0);
      // Its buckets, 0.5 ms to 10 s and +Inf, count cumulatively: +Inf holds every answer timed.
      const buckets = [
        ...after.matchAll(
          /^petstore_http_request_duration_seconds_bucket\{le="([^"]+)",operation="listCategories"\} (\d+)$/gm,
        ),
      ];
      assert.deepEqual(
        buckets.map((bucket) => bucket[1]),
        [
          '0.0005',
          '0.001',
          '0.0025',
          '0.005',
          '0.01',
          '0.025',
          '0.05',
          '0.1',
          '0.25',
          '0.5',
          '1',
          '2.5',
          '5',
          '10',
          '+Inf',
        ],
      );
      const cumulative = buckets.map((bucket) => Number(bucket[2]));
      assert.deepEqual(
        cumulative,
        [...cumulative].sort((a, b) => a - b),
      );
      assert.equal(
        cumulative.at(-1),
        seriesValue(after, 'petstore_http_request_duration_seconds_count{operation="listCategories"}'),
      );
      assert.match(after, /^# TYPE petstore_http_request_duration_seconds histogram$/m);
      const decisions = (outcome: string) =>
        delta(`petstore_ratelimit_decisions_total{outcome="${outcome}"}`);
      // The 404 was sent with the server's own key: allowed.
      assert.equal(decisions('allowed'), sent.list + sent.create + sent.notFound);
      assert.equal(decisions('limited'), sent.limited);
      assert.equal(decisions('anonymous'), sent.anonymous);
      assert.equal(delta('petstore_storage_call_duration_seconds_count{call="create"}'), sent.create);
      assert.ok(seriesValue(after, 'petstore_key_reloads_total') >= 1);
      assert.match(after, /^process_cpu_user_seconds_total /m, "the process's default metrics");
      assert.match(after, /^nodejs_eventloop_lag_seconds /m);
      if (backend.limiter === 'redis') {
        const total = sent.list + sent.create + sent.limited + sent.anonymous + sent.notFound;
        assert.equal(delta('petstore_redis_call_duration_seconds_count{call="hit"}'), total);
        assert.ok(seriesValue(after, 'petstore_db_pool_connections') >= 1);
        assert.match(after, /^petstore_db_pool_waiting \d+$/m);
      } else {
        assert.doesNotMatch(
          after,
          /^petstore_redis_call_duration_seconds_count/m,
          'no Redis, no Redis calls',
        );
      }
    });
  });
}
