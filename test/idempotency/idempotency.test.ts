import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { FakeClock } from '../../src/clock/index.js';
import { IDEMPOTENCY_TTL_MS } from '../../src/idempotency/index.js';
import { assertError, assertRateLimitHeaders } from '../support/assertions.js';
import { BACKENDS } from '../support/backends.js';
import { type JsonResponse, startTestServer, type TestServer } from '../support/server.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A POST over node:http, for header values that fetch refuses to send. */
function rawPost(url: string, headers: Record<string, string | string[]>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = http.request(url, { method: 'POST', headers }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

for (const backend of BACKENDS) {
  describe(`Idempotency-Key on every POST (${backend.name})`, () => {
    let server: TestServer;
    let clock: FakeClock;
    let keyNumber = 0;
    /** A fresh idempotency key per test, so tests never meet. */
    const freshKey = () => {
      keyNumber += 1;
      return `test-key-${keyNumber}-${backend.storage}`;
    };
    const count = async (sql: string) =>
      Number((await server.query<{ n: number | string }>(sql))[0]?.n ?? Number.NaN);
    const categoriesNamed = (name: string) =>
      count(`SELECT count(*) AS n FROM categories WHERE name = '${name}'`);
    // A business key (1,000 a minute): the fake clock keeps every request of the suite in one minute.
    let apiKey: string;
    const postWithKey = (path: string, body: unknown, key: string, owner = apiKey) =>
      server.post(path, body, { 'idempotency-key': key, authorization: `Bearer ${owner}` });

    before(async () => {
      clock = new FakeClock('2026-12-01T10:00:00.000Z');
      server = await startTestServer({}, { clock, backend });
      apiKey = (await server.createKey({ plan: 'business', name: 'idempotency' })).key;
    });
    after(() => server.close());

    test('a retry gets the first answer byte for byte, marked replayed, and creates nothing', async () => {
      const key = freshKey();
      const body = { name: 'Replayed', description: 'first' };
      const first = await postWithKey('/v1/categories', body, key);
      assert.equal(first.status, 201);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      for (let retry = 0; retry < 3; retry += 1) {
        const again = await postWithKey('/v1/categories', body, key);
        assert.equal(again.status, 201);
        assert.equal(again.text, first.text);
        assert.equal(again.headers.get('idempotent-replayed'), 'true');
        assert.equal(again.headers.get('content-type'), first.headers.get('content-type'));
        // The answer is new in every other way: its own request id and rate-limit headers.
        assert.notEqual(again.headers.get('x-request-id'), first.headers.get('x-request-id'));
        assertRateLimitHeaders(again);
        assert.notEqual(
          again.headers.get('x-ratelimit-remaining'),
          first.headers.get('x-ratelimit-remaining'),
        );
      }
      assert.equal(await categoriesNamed('Replayed'), 1);
    });

    test('the same body formatted differently, or with its fields in another order, is the same request', async () => {
      const key = freshKey();
      const first = await postWithKey('/v1/categories', { name: 'Spacing', description: 'two fields' }, key);
      for (const body of [
        '{ "name" :  "Spacing",\n "description": "two fields" }',
        '{"description":"two fields","name":"Spacing"}',
      ]) {
        const again = await server.call('/v1/categories', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'idempotency-key': key,
            authorization: `Bearer ${apiKey}`,
          },
          body,
        });
        assert.equal(again.status, 201, body);
        assert.equal(again.text, first.text);
      }
      assert.equal(await categoriesNamed('Spacing'), 1);
    });

    test('the same key with another body, or on another operation, is a 422 idempotency_key_reused', async () => {
      const key = freshKey();
      assert.equal((await postWithKey('/v1/categories', { name: 'Reused' }, key)).status, 201);
      const otherBody = await postWithKey('/v1/categories', { name: 'Reused, changed' }, key);
      assertError(otherBody, 422, 'idempotency_key_reused');
      const categoryId = ((await server.call('/v1/categories')).body as { id: number; name: string }[]).find(
        (category) => category.name === 'Reused',
      )?.id;
      const otherOperation = await postWithKey('/v1/pets', { name: 'Rex', categoryId }, key);
      assertError(otherOperation, 422, 'idempotency_key_reused');
      assert.equal(await categoriesNamed('Reused, changed'), 0);
      assert.equal(await count(`SELECT count(*) AS n FROM pets WHERE name = 'Rex'`), 0);
    });

    test('the keys of two API keys never meet', async () => {
      const other = await server.createKey({ plan: 'pro', name: 'other' });
      const key = freshKey();
      const mine = await postWithKey('/v1/categories', { name: 'Two owners' }, key);
      const theirs = await postWithKey('/v1/categories', { name: 'Two owners' }, key, other.key);
      assert.equal(mine.status, 201);
      assert.equal(theirs.status, 201);
      assert.equal(theirs.headers.get('idempotent-replayed'), null);
      assert.notEqual((mine.body as { id: number }).id, (theirs.body as { id: number }).id);
      assert.equal(await categoriesNamed('Two owners'), 2);
    });

    test('a malformed Idempotency-Key is a 400 and nothing is created', async () => {
      const url = `${server.url}/v1/categories`;
      const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
      const body = JSON.stringify({ name: 'Bad key' });
      for (const key of ['x'.repeat(256), 'caf\u00e9', 'tab\there', '""']) {
        const status = await rawPost(url, { ...headers, 'idempotency-key': key }, body);
        assert.equal(status, 400, `Idempotency-Key ${JSON.stringify(key)}`);
      }
      // Two header lines would be joined into one key ("a, b"); the field is one string, sent once.
      const twice = await rawPost(url, { ...headers, 'idempotency-key': [freshKey(), freshKey()] }, body);
      assert.equal(twice, 400, 'Idempotency-Key sent twice');
      const response = await postWithKey('/v1/categories', { name: 'Bad key' }, 'y'.repeat(256));
      assertError(response, 400, 'validation_failed');
      assert.match((response.body as { message: string }).message, /Idempotency-Key/);
      assert.equal(await categoriesNamed('Bad key'), 0);
      // A path that takes no POST answers 405, whatever the key.
      const notAllowed = await postWithKey('/v1/pets/1', { name: 'Bad key' }, 'y'.repeat(256));
      assertError(notAllowed, 405, 'method_not_allowed');
      // 255 printable characters, and the structured-field form, are keys.
      assert.equal((await postWithKey('/v1/categories', { name: 'Long key' }, 'z'.repeat(255))).status, 201);
      const quoted = await postWithKey('/v1/categories', { name: 'Quoted' }, '"quoted-key"');
      const bare = await postWithKey('/v1/categories', { name: 'Quoted' }, 'quoted-key');
      assert.equal(bare.headers.get('idempotent-replayed'), 'true');
      assert.equal(bare.text, quoted.text);
    });

    test('answers refused before the handler, and errors that created nothing, are not stored', async () => {
      const key = freshKey();
      // Validation refuses the body: nothing stored, so the key is free for the corrected request.
      assertError(await postWithKey('/v1/categories', { name: '' }, key), 400, 'validation_failed');
      // An unknown API key is refused before anything: nothing stored either.
      const unauthenticated = await server.post(
        '/v1/categories',
        { name: 'Unauthenticated' },
        { 'idempotency-key': key, authorization: 'Bearer nope' },
      );
      assertError(unauthenticated, 401, 'invalid_api_key');
      const corrected = await postWithKey('/v1/categories', { name: 'Corrected' }, key);
      assert.equal(corrected.status, 201);
      assert.equal(corrected.headers.get('idempotent-replayed'), null);

      // The handler's own error (no such category) created nothing: a retry runs again and can succeed.
      const petKey = freshKey();
      const missingCategory = 4_000_000 + keyNumber;
      const pet = { name: 'Waiting', categoryId: missingCategory };
      assertError(await postWithKey('/v1/pets', pet, petKey), 400, 'validation_failed');
      const stored = await count(
        `SELECT count(*) AS n FROM idempotency_records WHERE idempotency_key = '${petKey}'`,
      );
      assert.equal(stored, 0);
      const retried = await postWithKey('/v1/pets', pet, petKey);
      assertError(retried, 400, 'validation_failed');
      assert.equal(retried.headers.get('idempotent-replayed'), null, 'the retry ran again, not replayed');
    });

    test('orders: a retried order is replayed, and the pet is claimed once', async () => {
      const categoryId = (
        (await server.post('/v1/categories', { name: 'Order dogs' })).body as { id: number }
      ).id;
      const petId = ((await server.post('/v1/pets', { name: 'Claimed', categoryId })).body as { id: number })
        .id;
      const key = freshKey();
      const first = await postWithKey('/v1/store/orders', { petId, quantity: 1 }, key);
      assert.equal(first.status, 201);
      const retry = await postWithKey('/v1/store/orders', { petId, quantity: 1 }, key);
      assert.equal(retry.status, 201);
      assert.equal(retry.text, first.text);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      // Without the key, a second order is a new request, and the pet is no longer available.
      assertError(await server.post('/v1/store/orders', { petId, quantity: 1 }), 409, 'pet_not_available');
      assert.equal(await count(`SELECT count(*) AS n FROM orders WHERE pet_id = ${petId}`), 1);
    });

    test('200 concurrent identical POSTs with one key: one row; every answer the same 201 or a 409', async () => {
      const key = freshKey();
      const body = { name: 'Concurrent', description: 'one of two hundred' };
      const answers: JsonResponse[] = await Promise.all(
        Array.from({ length: 200 }, () => postWithKey('/v1/categories', body, key)),
      );
      const created = answers.filter((answer) => answer.status === 201);
      const inUse = answers.filter((answer) => answer.status === 409);
      assert.equal(created.length + inUse.length, 200, `statuses: ${answers.map((a) => a.status)}`);
      assert.ok(created.length >= 1);
      assert.equal(new Set(created.map((answer) => answer.text)).size, 1);
      for (const answer of inUse) {
        assertError(answer, 409, 'idempotency_key_in_use');
        assert.equal(answer.headers.get('retry-after'), '1');
      }
      assert.equal(await categoriesNamed('Concurrent'), 1);
      // Once the first is done, every retry is the replay.
      const retry = await postWithKey('/v1/categories', body, key);
      assert.equal(retry.text, created[0]?.text);
    });

    test('answers expire after 24 h: then the key creates again, and the purge removes them', async () => {
      const key = freshKey();
      const first = await postWithKey('/v1/categories', { name: 'Expiring' }, key);
      clock.advance(IDEMPOTENCY_TTL_MS - 1);
      const within = await postWithKey('/v1/categories', { name: 'Expiring' }, key);
      assert.equal(within.headers.get('idempotent-replayed'), 'true');
      clock.advance(2);
      const afterExpiry = await postWithKey('/v1/categories', { name: 'Expiring' }, key);
      assert.equal(afterExpiry.status, 201);
      assert.equal(afterExpiry.headers.get('idempotent-replayed'), null);
      assert.notEqual((afterExpiry.body as { id: number }).id, (first.body as { id: number }).id);
      assert.equal(await categoriesNamed('Expiring'), 2);

      // A day later every answer stored so far has expired; purging leaves none of them.
      clock.advance(DAY_MS + 1);
      const before = await count('SELECT count(*) AS n FROM idempotency_records');
      assert.ok(before > 0);
      const purged = await server.deps.storage.idempotency.purge(clock.now() - IDEMPOTENCY_TTL_MS);
      assert.equal(purged, before);
      assert.equal(await count('SELECT count(*) AS n FROM idempotency_records'), 0);
    });
  });
}
