import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
// Imported as users import it (the client package, by its name), so the import line of docs/client.md is what is tested.
import {
  AuthenticationError,
  createClient,
  type FetchLike,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ValidationError,
} from '@petstore-api/client';
// The name 1.3 documented, which the server package still exports.
import * as compatible from '@petstore-api/server/client';
import { FakeClock } from '../../src/clock/index.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('the client against the real server', () => {
  let server: TestServer;
  let clock: FakeClock;
  before(async () => {
    clock = new FakeClock('2026-12-01T10:00:00.000Z');
    server = await startTestServer({}, { clock });
  });
  after(() => server.close());

  test('every operation, typed end to end', async () => {
    const client = createClient({ baseUrl: `${server.url}/v1`, apiKey: server.key });
    const dog = await client.createCategory({ name: 'Dog', description: 'Domestic dogs' });
    assert.deepEqual(dog, { id: dog.id, name: 'Dog', description: 'Domestic dogs' });
    assert.ok((await client.listCategories()).some((category) => category.id === dog.id));
    const rex = await client.createPet({ name: 'Rex', categoryId: dog.id });
    assert.equal(rex.status, 'available');
    assert.deepEqual(await client.listPets({ categoryId: dog.id }), [rex]);
    assert.deepEqual(await client.getPetById(rex.id), rex);
    const order = await client.placeOrder({ petId: rex.id, quantity: 1 });
    assert.equal(order.status, 'placed');
    assert.ok((await client.listOrders({ status: 'placed' })).some((placed) => placed.id === order.id));
  });

  test('getKey shows the calling key and spends nothing; a key without the scope gets PermissionDeniedError', async () => {
    const { id, key } = await server.createKey({ plan: 'free', name: 'client', scopes: ['pets:read'] });
    const client = createClient({ baseUrl: server.url, apiKey: key, maxRetries: 0 });
    const info = await client.getKey();
    assert.equal(info.id, id);
    assert.deepEqual(info.scopes, ['pets:read']);
    assert.equal(info.limits.day.limit, 1000);
    assert.equal((await client.getKey()).limits.day.remaining, info.limits.day.remaining, 'nothing spent');
    const denied = await client.listCategories().catch((error: unknown) => error);
    assert.ok(denied instanceof PermissionDeniedError);
    assert.equal(denied.status, 403);
    assert.equal(denied.code, 'insufficient_scope');
  });

  test('answers become the error classes, with the status, code and request id', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: server.key, maxRetries: 0 });
    const invalid = await client.createCategory({ name: '' }).catch((error: unknown) => error);
    assert.ok(invalid instanceof ValidationError);
    assert.equal(invalid.status, 400);
    assert.equal(invalid.code, 'validation_failed');
    assert.match(invalid.requestId ?? '', /\S/);
    const missing = await client.getPetById(987_654).catch((error: unknown) => error);
    assert.ok(missing instanceof NotFoundError);
    assert.equal(missing.code, 'not_found');
    const stranger = createClient({ baseUrl: server.url, apiKey: 'ps_live_notarealkey', maxRetries: 0 });
    const refused = await stranger.listCategories().catch((error: unknown) => error);
    assert.ok(refused instanceof AuthenticationError);
    assert.equal(refused.code, 'invalid_api_key');
    assert.equal(refused.status, 401);
  });

  test('100 creates with a free key through the limit: each created once, waits as Retry-After says', async () => {
    const { key } = await server.createKey({ plan: 'free', name: 'client' });
    const refusals: number[] = [];
    // Sees every answer, to compare the client's waits with the Retry-After the server sent.
    const observed: FetchLike = async (url, init) => {
      const response = await fetch(url, init);
      if (response.status === 429) refusals.push(Number(response.headers.get('retry-after')));
      return response;
    };
    const waits: number[] = [];
    const client = createClient({
      baseUrl: server.url,
      apiKey: key,
      fetch: observed,
      // Waiting is moving the server's clock: the test takes no real minute.
      sleep: async (ms) => {
        waits.push(ms);
        clock.advance(ms);
      },
      now: () => clock.now(),
      retry: { maxDelayMs: 120_000 },
    });

    const names = Array.from({ length: 100 }, (_, i) => `Free key category ${i}`);
    const created = [];
    for (const name of names) created.push(await client.createCategory({ name }));

    assert.ok(refusals.length >= 1, 'the free limit (60 a minute) was hit');
    assert.deepEqual(
      waits,
      refusals.map((seconds) => seconds * 1000),
      'every wait is the Retry-After of the 429 before it',
    );
    const stored = await server.query<{ name: string; n: number }>(
      "SELECT name, count(*) AS n FROM categories WHERE name LIKE 'Free key category %' GROUP BY name",
    );
    assert.equal(stored.length, 100);
    assert.ok(
      stored.every((row) => Number(row.n) === 1),
      'no category was created twice',
    );
    assert.equal(new Set(created.map((category) => category.id)).size, 100);
  });

  test('a 429 whose Retry-After exceeds the cap is thrown with retryAfterMs, not waited for', async () => {
    const { key } = await server.createKey({ plan: 'free', name: 'impatient' });
    const client = createClient({ baseUrl: server.url, apiKey: key, retry: { maxDelayMs: 1_000 } });
    clock.set('2026-12-01T12:00:00.000Z');
    for (let i = 0; i < 60; i += 1) await client.listCategories();
    const limited = await client.listCategories().catch((error: unknown) => error);
    assert.ok(limited instanceof RateLimitError);
    assert.equal(limited.code, 'rate_limit_exceeded');
    assert.equal(limited.retryAfterMs, 60_000);
  });
});

test('the server package still exports the client as @petstore-api/server/client, the very same module', async () => {
  // 1.3 documented that name; it now leads to the client package's build, so each class is one class.
  const packaged = await import('@petstore-api/client');
  assert.deepEqual(Object.keys(compatible).sort(), Object.keys(packaged).sort());
  assert.equal(compatible.createClient, createClient);
  assert.equal(compatible.RateLimitError, RateLimitError);
});
