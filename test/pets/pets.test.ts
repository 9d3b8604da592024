import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FakeClock } from '../../src/clock/index.js';
import { assertError, assertRateLimitHeaders } from '../support/assertions.js';
import { BACKENDS } from '../support/backends.js';
import { request, startTestServer, type TestServer } from '../support/server.js';

interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

/** The default dates of DESIGN.md section 5, as the headers must show them. */
const DEPRECATION = '@1793491200'; // 2026-11-01T00:00:00Z
const SUNSET = 'Wed, 30 Jun 2027 00:00:00 GMT';

function assertDeprecationHeaders(response: { headers: Headers }): void {
  assert.equal(response.headers.get('deprecation'), DEPRECATION);
  assert.equal(response.headers.get('sunset'), SUNSET);
  // No public URL is configured: the notice is on the origin the client called (RFC 8288 section 3.1).
  assert.equal(response.headers.get('link'), '</docs#deprecations>; rel="deprecation"');
}

for (const backend of BACKENDS) {
  describe(`pets (${backend.name})`, () => {
    let server: TestServer;
    let dogs: number;
    let cats: number;
    before(async () => {
      // Before the deprecated endpoint's sunset, whatever day the suite runs.
      server = await startTestServer({}, { backend, clock: new FakeClock('2026-12-01T10:00:00.000Z') });
      dogs = ((await server.post('/v1/categories', { name: 'Dog' })).body as { id: number }).id;
      cats = ((await server.post('/v1/categories', { name: 'Cat' })).body as { id: number }).id;
    });
    after(() => server.close());

    test('create answers 201 with the id; status defaults to available', async () => {
      const rex = await server.post('/v1/pets', { name: 'Rex', categoryId: dogs });
      assert.equal(rex.status, 201);
      const pet = rex.body as Pet;
      assert.deepEqual(pet, { id: pet.id, name: 'Rex', categoryId: dogs, status: 'available' });
      const tom = await server.post('/v1/pets', { name: 'Tom', categoryId: cats, status: 'sold' });
      assert.equal((tom.body as Pet).status, 'sold');
    });

    const invalid: [string, unknown, RegExp][] = [
      ['no categoryId', { name: 'Rex' }, /categoryId is required/],
      [
        'a categoryId that is not an integer',
        { name: 'Rex', categoryId: '1' },
        /categoryId must be an integer/,
      ],
      ['a categoryId below 1', { name: 'Rex', categoryId: 0 }, /^categoryId must be at least 1$/],
      [
        'an unknown status',
        { name: 'Rex', categoryId: 1, status: 'lost' },
        /^status must be one of available, pending, sold$/,
      ],
      ['an empty name', { name: '', categoryId: 1 }, /name must be at least 1 character long/],
      ['an unknown field', { name: 'Rex', categoryId: 1, colour: 'brown' }, /unknown field 'colour'/],
    ];
    for (const [label, body, message] of invalid) {
      test(`create refuses ${label} with 400`, async () => {
        const response = await server.post('/v1/pets', body);
        assertError(response, 400, 'validation_failed');
        assert.match((response.body as { message: string }).message, message);
      });
    }

    test('a categoryId that names no category is a 400 naming the field', async () => {
      const response = await server.post('/v1/pets', { name: 'Ghost', categoryId: 999_999 });
      assertError(response, 400, 'validation_failed');
      assert.equal(
        (response.body as { message: string }).message,
        'categoryId 999999 does not name an existing category',
      );
    });

    test('the list filters by category and status, ascending by id', async () => {
      // Rows of its own, whatever ran before: one dog available, one cat sold.
      await server.post('/v1/pets', { name: 'Filtered dog', categoryId: dogs });
      await server.post('/v1/pets', { name: 'Filtered cat', categoryId: cats, status: 'sold' });
      const all = (await server.call('/v1/pets')).body as Pet[];
      assert.ok(all.length >= 2);
      assert.deepEqual(
        all.map((pet) => pet.id),
        all.map((pet) => pet.id).toSorted((a, b) => a - b),
      );
      const onlyDogs = (await server.call(`/v1/pets?categoryId=${dogs}`)).body as Pet[];
      assert.ok(onlyDogs.length > 0 && onlyDogs.every((pet) => pet.categoryId === dogs));
      const sold = (await server.call('/v1/pets?status=sold')).body as Pet[];
      assert.ok(sold.length > 0 && sold.every((pet) => pet.status === 'sold'));
      const soldDogs = (await server.call(`/v1/pets?status=sold&categoryId=${dogs}`)).body as Pet[];
      assert.deepEqual(soldDogs, []);
    });

    const badFilters: [string, string][] = [
      ['categoryId=0', 'categoryId must be at least 1'],
      ['status=lost', 'status must be one of available, pending, sold'],
      ['colour=brown', "unknown query parameter 'colour'"],
      ['status=sold&status=pending', 'status must be given once'],
      ['categoryId=1&categoryId=1', 'categoryId must be given once'],
    ];
    // Ajv would coerce each of these to 1 (or 10): only plain decimal digits name an id.
    for (const id of [
      'abc',
      '1.0',
      '1e0',
      '+1',
      '01',
      '%201',
      '1%20',
      '0x1',
      '1.5',
      '-1',
      '1e1',
      '1_0',
      '１',
    ]) {
      badFilters.push([
        `categoryId=${id}`,
        'categoryId must be a whole number in plain decimal digits, such as 42 (no sign, leading zeros, exponent or fraction)',
      ]);
    }
    for (const [query, message] of badFilters) {
      test(`a bad filter (${query}) is a 400 saying why`, async () => {
        const response = await server.call(`/v1/pets?${query}`);
        assertError(response, 400, 'validation_failed');
        assert.equal((response.body as { message: string }).message, message);
      });
    }

    describe('GET /v1/pets/{petId}, deprecated', () => {
      test('answers the pet, with Deprecation, Sunset and Link', async () => {
        const created = (await server.post('/v1/pets', { name: 'Fido', categoryId: dogs })).body as Pet;
        const response = await server.call(`/v1/pets/${created.id}`);
        assert.equal(response.status, 200);
        assert.deepEqual(response.body, created);
        assertDeprecationHeaders(response);
        assertRateLimitHeaders(response);
      });

      test('every answer carries the deprecation headers: 404, 400, 401', async () => {
        const missing = await server.call('/v1/pets/424242');
        assertError(missing, 404, 'not_found');
        assert.equal((missing.body as { message: string }).message, 'No pet has the id 424242');
        assertDeprecationHeaders(missing);

        for (const id of ['abc', '0', '1.5', '-1', '99999999999999999999']) {
          const bad = await server.call(`/v1/pets/${id}`);
          assertError(bad, 400, 'validation_failed');
          assertDeprecationHeaders(bad);
        }
        const anonymous = await request(`${server.url}/v1/pets/1`);
        assertError(anonymous, 401, 'missing_api_key');
        assertDeprecationHeaders(anonymous);
      });

      test('only plain decimal digits name a pet: 1.0, 1e0, +1 and 01 are 400, not pet 1', async () => {
        const created = (await server.post('/v1/pets', { name: 'One', categoryId: dogs })).body as Pet;
        const id = String(created.id);
        assert.equal((await server.call(`/v1/pets/${id}`)).status, 200);
        for (const spelling of [`${id}.0`, `${id}e0`, `+${id}`, `0${id}`, `%20${id}`, `${id}%20`, `${id}.`]) {
          const response = await server.call(`/v1/pets/${spelling}`);
          assertError(response, 400, 'validation_failed');
          assert.equal(
            (response.body as { message: string }).message,
            'petId must be a whole number in plain decimal digits, such as 42 (no sign, leading zeros, exponent or fraction)',
            spelling,
          );
        }
        const big = await server.call('/v1/pets/99999999999999999999');
        assert.equal((big.body as { message: string }).message, 'petId must be at most 9007199254740991');
      });

      test('other operations carry no deprecation headers', async () => {
        const response = await server.call('/v1/pets');
        assert.equal(response.headers.get('deprecation'), null);
        assert.equal(response.headers.get('sunset'), null);
      });

      test('each call is logged and counted by key', async () => {
        const { key, id } = await server.createKey({ plan: 'free' });
        await server.call('/v1/pets/1', { headers: { authorization: `Bearer ${key}` } });
        await server.call('/v1/pets/2', { headers: { authorization: `Bearer ${key}` } });
        const metrics = await request(`${server.url}/metrics`);
        assert.equal(metrics.status, 200);
        assert.match(
          metrics.text,
          new RegExp(`petstore_deprecated_calls_total\\{operation="getPetById",key_id="${id}"\\} 2`),
        );
        assert.ok(
          server.logs.some((line) => line.includes('deprecated endpoint called') && line.includes(id)),
        );
      });
    });
  });
}

describe('the deprecation notice', () => {
  test("links beside the public URL of the instance's environment when one is configured", async (t) => {
    const server = await startTestServer({
      PETSTORE_ENV: 'staging',
      PETSTORE_PRODUCTION_URL: 'https://api.example.test/v1',
      PETSTORE_STAGING_URL: 'https://staging.example.test/petstore/v1',
    });
    t.after(() => server.close());
    const response = await server.call('/v1/pets/1');
    assert.equal(
      response.headers.get('link'),
      '<https://staging.example.test/petstore/docs#deprecations>; rel="deprecation"',
    );
  });
});

describe('the sunset', () => {
  test('from the sunset date on, the endpoint answers 410 endpoint_sunset', async (t) => {
    const clock = new FakeClock('2027-06-29T23:59:59.999Z');
    const server = await startTestServer({}, { clock });
    t.after(() => server.close());
    const category = (await server.post('/v1/categories', { name: 'Dog' })).body as { id: number };
    const pet = (await server.post('/v1/pets', { name: 'Rex', categoryId: category.id })).body as Pet;
    assert.equal(
      (await server.call(`/v1/pets/${pet.id}`)).status,
      200,
      'the last millisecond before the sunset',
    );

    clock.set('2027-06-30T00:00:00.000Z');
    const gone = await server.call(`/v1/pets/${pet.id}`);
    assertError(gone, 410, 'endpoint_sunset');
    assertDeprecationHeaders(gone);
    assert.equal((await server.call('/v1/pets')).status, 200, 'the rest of the API is unaffected');
  });

  test('dates come from the configuration; the sunset may not precede the deprecation', async (t) => {
    const server = await startTestServer(
      {},
      {
        configFile: {
          deprecation: { deprecatedAt: '2027-01-15', sunsetAt: '2028-01-31', link: 'https://x.test/n' },
        },
      },
    );
    t.after(() => server.close());
    const response = await server.call('/v1/pets/1');
    assert.equal(response.headers.get('deprecation'), `@${Date.parse('2027-01-15T00:00:00Z') / 1000}`);
    assert.equal(response.headers.get('sunset'), 'Mon, 31 Jan 2028 00:00:00 GMT');
    assert.equal(response.headers.get('link'), '<https://x.test/n>; rel="deprecation"');

    await assert.rejects(
      startTestServer(
        {},
        { configFile: { deprecation: { deprecatedAt: '2027-01-15', sunsetAt: '2027-01-14' } } },
      ),
      /sunsetAt must not be earlier than deprecation.deprecatedAt/,
    );
  });
});
