import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@petstore-api/client';
import { BACKENDS } from '../support/backends.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** Runs `work` for 0..count-1, `width` at a time. */
async function inParallel(count: number, width: number, work: (index: number) => Promise<unknown>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let index = next++; index < count; index = next++) await work(index);
    }),
  );
}

const nextOf = (link: string | null) => /<([^>]+)>; rel="next"/.exec(link ?? '')?.[1];

for (const backend of BACKENDS) {
  describe(`pagination of the lists (${backend.name})`, () => {
    let server: TestServer;
    let as: { authorization: string };
    let categoryId = 0;
    before(async () => {
      server = await startTestServer({}, { backend });
      const { key } = await server.createKey({
        plan: 'enterprise',
        limits: { perMinute: 100_000, perDay: 1_000_000 },
      });
      as = { authorization: `Bearer ${key}` };
    });
    after(() => server.close());

    const post = async (path: string, body: unknown) => {
      const answer = await server.call(path, {
        method: 'POST',
        headers: { ...as, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(answer.status, 201, answer.text);
      return answer.body as { id: number };
    };

    /** Walks every page of `first`, while `meanwhile` runs; the ids seen, in order. */
    async function walk(first: string, meanwhile: Promise<unknown>): Promise<number[]> {
      const seen: number[] = [];
      let path: string | undefined = first;
      while (path !== undefined) {
        const page = await server.call(path, { headers: as });
        assert.equal(page.status, 200, page.text);
        seen.push(...(page.body as { id: number }[]).map((item) => item.id));
        path = nextOf(page.headers.get('link'));
      }
      await meanwhile;
      return seen;
    }

    test('categories: every page walked while 1,000 are created gives each earlier category exactly once', async () => {
      for (let index = 0; index < 250; index += 1) await post('/v1/categories', { name: `before ${index}` });
      const existing = ((await server.call('/v1/categories', { headers: as })).body as { id: number }[]).map(
        (category) => category.id,
      );
      categoryId = existing[0] as number;
      const inserts = inParallel(1_000, 20, (index) => post('/v1/categories', { name: `during ${index}` }));
      const seen = await walk('/v1/categories?limit=37', inserts);
      assert.equal(new Set(seen).size, seen.length, 'no category twice');
      for (const id of existing) assert.ok(seen.includes(id), `category ${id} seen`);
      assert.deepEqual(
        seen,
        [...seen].sort((a, b) => a - b),
        'ascending by id',
      );
    });

    test('pets: the same, through a filter, and the Link keeps the filter', async () => {
      for (let index = 0; index < 120; index += 1)
        await post('/v1/pets', { name: `pet ${index}`, categoryId });
      const existing = (
        (await server.call(`/v1/pets?categoryId=${categoryId}`, { headers: as })).body as { id: number }[]
      ).map((pet) => pet.id);
      const inserts = inParallel(1_000, 20, (index) =>
        post('/v1/pets', { name: `new ${index}`, categoryId }),
      );
      const first = await server.call(`/v1/pets?categoryId=${categoryId}&limit=25`, { headers: as });
      assert.match(first.headers.get('link') ?? '', new RegExp(`categoryId=${categoryId}`));
      const seen = await walk(`/v1/pets?categoryId=${categoryId}&limit=25`, inserts);
      assert.equal(new Set(seen).size, seen.length);
      for (const id of existing) assert.ok(seen.includes(id), `pet ${id} seen`);
    });

    test('orders, newest first by an opaque cursor: new orders never shift the pages', async () => {
      const pets = (
        (await server.call(`/v1/pets?categoryId=${categoryId}&status=available`, { headers: as })).body as {
          id: number;
        }[]
      ).map((pet) => pet.id);
      const [early, late] = [pets.slice(0, 150), pets.slice(150, 450)];
      for (const petId of early) await post('/v1/store/orders', { petId, quantity: 1 });
      const existing = (
        (await server.call('/v1/store/orders', { headers: as })).body as { id: number }[]
      ).map((order) => order.id);
      const inserts = inParallel(late.length, 20, (index) =>
        post('/v1/store/orders', { petId: late[index], quantity: 1 }),
      );
      const seen = await walk('/v1/store/orders?limit=20', inserts);
      assert.equal(new Set(seen).size, seen.length);
      for (const id of existing) assert.ok(seen.includes(id), `order ${id} seen`);
    });

    test('no parameters: the whole array, byte for byte what the store holds', async () => {
      const whole = await server.call('/v1/categories', { headers: as });
      assert.equal(whole.text, JSON.stringify(await server.deps.storage.categories.list()));
      assert.equal(whole.headers.get('link'), null);
      const pets = await server.call('/v1/pets', { headers: as });
      assert.equal(pets.text, JSON.stringify(await server.deps.storage.pets.list({})));
    });

    test('a category page has an ETag of its own, and answers 304 to it', async () => {
      const page = await server.call('/v1/categories?limit=10&after=5', { headers: as });
      const etag = page.headers.get('etag') as string;
      assert.notEqual(etag, (await server.call('/v1/categories', { headers: as })).headers.get('etag'));
      const again = await server.call('/v1/categories?limit=10&after=5', {
        headers: { ...as, 'if-none-match': etag },
      });
      assert.equal(again.status, 304);
      assert.equal(again.headers.get('link'), page.headers.get('link'));
    });

    test('bad paging parameters are a 400 naming the parameter', async () => {
      for (const path of ['/v1/categories', '/v1/pets', '/v1/store/orders']) {
        for (const [query, name] of [
          ['limit=0', 'limit'],
          ['limit=1001', 'limit'],
          ['limit=ten', 'limit'],
          ['after=garbage!', 'after'],
        ] as const) {
          const answer = await server.call(`${path}?${query}`, { headers: as });
          assert.equal(answer.status, 400, `${path}?${query}`);
          assert.equal((answer.body as { code: string }).code, 'validation_failed');
          assert.match(
            (answer.body as { message: string }).message,
            new RegExp(`^${name} `),
            `${path}?${query}`,
          );
        }
      }
      // A cursor of the right shape holding a day that does not exist is no cursor of ours either.
      for (const cursor of ['nope', '2026-02-30T10:00:00.000Z|1', '2026-01-31T24:00:00.000Z|1']) {
        const forged = await server.call(
          `/v1/store/orders?after=${Buffer.from(cursor).toString('base64url')}`,
          { headers: as },
        );
        assert.equal(forged.status, 400, cursor);
        assert.match((forged.body as { message: string }).message, /after must be a cursor/);
      }
    });

    test("the client's paginate walks every page", async () => {
      const client = createClient({ baseUrl: server.url, apiKey: as.authorization.slice('Bearer '.length) });
      const ids: number[] = [];
      for await (const category of client.paginate('listCategories', { limit: 200 })) ids.push(category.id);
      const all = (await client.listCategories()).map((category) => category.id);
      assert.deepEqual(ids, all);
      let orders = 0;
      for await (const _order of client.paginate('listOrders', { limit: 33 })) orders += 1;
      assert.equal(orders, (await client.listOrders()).length);
    });
  });
}
