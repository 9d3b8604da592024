import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FakeClock } from '../../src/clock/index.js';
import { assertError } from '../support/assertions.js';
import { BACKENDS } from '../support/backends.js';
import { startTestServer, type TestServer } from '../support/server.js';

interface Order {
  id: number;
  petId: number;
  quantity: number;
  status: string;
  createdAt: string;
}

for (const backend of BACKENDS) {
  describe(`store orders (${backend.name})`, () => {
    let server: TestServer;
    let clock: FakeClock;
    let categoryId: number;
    const newPet = async (status = 'available') =>
      ((await server.post('/v1/pets', { name: 'Rex', categoryId, status })).body as { id: number }).id;

    before(async () => {
      clock = new FakeClock('2026-12-01T10:00:00.000Z');
      server = await startTestServer({}, { clock, backend });
      categoryId = ((await server.post('/v1/categories', { name: 'Dog' })).body as { id: number }).id;
    });
    after(() => server.close());

    test('placing an order answers 201 and marks the pet pending', async () => {
      const petId = await newPet();
      const response = await server.post('/v1/store/orders', { petId, quantity: 2 });
      assert.equal(response.status, 201);
      const order = response.body as Order;
      assert.deepEqual(order, {
        id: order.id,
        petId,
        quantity: 2,
        status: 'placed',
        createdAt: '2026-12-01T10:00:00.000Z',
      });
      const pet = (await server.call(`/v1/pets?status=pending`)).body as { id: number }[];
      assert.ok(pet.some((entry) => entry.id === petId));
    });

    test('ordering a pet that is not available is a 409 pet_not_available', async () => {
      for (const status of ['pending', 'sold']) {
        const petId = await newPet(status);
        const response = await server.post('/v1/store/orders', { petId, quantity: 1 });
        assertError(response, 409, 'pet_not_available');
      }
    });

    const invalid: [string, unknown, RegExp][] = [
      ['quantity 1001', { petId: 1, quantity: 1001 }, /^quantity must be at most 1000$/],
      ['quantity 0', { petId: 1, quantity: 0 }, /^quantity must be at least 1$/],
      ['a fractional quantity', { petId: 1, quantity: 1.5 }, /quantity must be an integer/],
      ['a quantity as a string', { petId: 1, quantity: '1' }, /quantity must be an integer/],
      ['no quantity', { petId: 1 }, /quantity is required/],
      ['no petId', { quantity: 1 }, /petId is required/],
      [
        'a status chosen by the client',
        { petId: 1, quantity: 1, status: 'delivered' },
        /unknown field 'status'/,
      ],
    ];
    for (const [label, body, message] of invalid) {
      test(`refuses ${label} with 400`, async () => {
        const response = await server.post('/v1/store/orders', body);
        assertError(response, 400, 'validation_failed');
        assert.match((response.body as { message: string }).message, message);
      });
    }

    test('a petId that names no pet is a 400 naming the field', async () => {
      const response = await server.post('/v1/store/orders', { petId: 777_777, quantity: 1 });
      assertError(response, 400, 'validation_failed');
      assert.equal(
        (response.body as { message: string }).message,
        'petId 777777 does not name an existing pet',
      );
    });

    test('the list is newest first and filters by status', async () => {
      clock.advance(60_000);
      const later = (await server.post('/v1/store/orders', { petId: await newPet(), quantity: 1 }))
        .body as Order;
      const orders = (await server.call('/v1/store/orders')).body as Order[];
      assert.equal(orders[0]?.id, later.id);
      const times = orders.map((order) => order.createdAt);
      assert.deepEqual(times, times.toSorted().reverse());
      const placed = (await server.call('/v1/store/orders?status=placed')).body as Order[];
      assert.equal(placed.length, orders.length);
      assert.deepEqual((await server.call('/v1/store/orders?status=delivered')).body, []);
      assertError(await server.call('/v1/store/orders?status=lost'), 400, 'validation_failed');
    });

    test('50 concurrent orders for one available pet: exactly one 201, the rest 409', async () => {
      const petId = await newPet();
      const { key } = await server.createKey({
        plan: 'enterprise',
        limits: { perMinute: 10_000, perDay: 10_000 },
      });
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          server.post('/v1/store/orders', { petId, quantity: 1 }, { authorization: `Bearer ${key}` }),
        ),
      );
      const statuses = answers.map((answer) => answer.status).toSorted();
      assert.deepEqual(statuses, [201, ...Array(49).fill(409)]);
      const orders = (await server.call('/v1/store/orders')).body as Order[];
      assert.equal(orders.filter((order) => order.petId === petId).length, 1);
    });

    test('the document marks stability and the deprecation', async () => {
      const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, Record<string, unknown>>>;
      };
      assert.equal(document.paths['/pets']?.get?.['x-stability'], 'beta');
      assert.equal(document.paths['/pets']?.post?.['x-stability'], 'beta');
      assert.equal(document.paths['/store/orders']?.get?.['x-stability'], 'beta');
      assert.equal(document.paths['/store/orders']?.post?.['x-stability'], 'experimental');
      const getPet = document.paths['/pets/{petId}']?.get;
      assert.equal(getPet?.deprecated, true);
      assert.equal(getPet?.['x-sunset'], '2027-06-30');
      for (const item of Object.values(document.paths)) {
        for (const operation of Object.values(item)) {
          assert.ok(operation.operationId);
          for (const status of ['401', '429', '500'])
            assert.ok((operation.responses as Record<string, unknown>)[status]);
        }
      }
    });
  });
}
