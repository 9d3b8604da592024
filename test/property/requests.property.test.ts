import assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { OperationId } from '../../src/contract/index.js';
import { assertErrorShape } from '../support/assertions.js';
import { BACKENDS } from '../support/backends.js';
import { startTestServer, type TestServer } from '../support/server.js';

const RUNS = 2_000;
/** Categories and available pets made before the runs, for the generated ids to find. */
const SEEDED = 30;

/** Characters that have broken stores and parsers before: NUL, lone surrogates, controls, invisible ones. */
const nastyChar = fc.constantFrom(
  '\u0000',
  '\ud800',
  '\udfff',
  '\u0007',
  '\u001b',
  '\u200b',
  '\ufeff',
  '\u2028',
  '"',
  '\\',
);
const text = (maxLength: number) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.string({ maxLength }) },
    fc.string({ unit: 'grapheme', maxLength }),
    fc.string({ unit: fc.oneof(fc.string({ minLength: 1, maxLength: 1 }), nastyChar), maxLength }),
    fc.constantFrom('', ' ', '\t\n', 'Dog', 'n'.repeat(100), 'n'.repeat(101)),
  );
const validName = fc.string({ minLength: 1, maxLength: 100 }).filter((value) => /\S/.test(value));
const id = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1, max: SEEDED }) },
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 2 ** 53, '1', null, true),
);
const anything = fc.jsonValue();
const extraField = fc.option(fc.record({ extra: anything }), { nil: undefined });

/** Bodies shaped like each operation's, mostly almost valid, so generated requests reach every check. */
const BODIES = {
  // A share of valid bodies, so that every run stores some rows and the storage check below means something.
  category: fc.oneof(
    fc.record({ name: validName, description: fc.string({ maxLength: 1000 }) }, { requiredKeys: ['name'] }),
    {
      weight: 3,
      arbitrary: fc.record(
        { name: fc.oneof(validName, text(120), anything), description: fc.oneof(text(1100), anything), id },
        { requiredKeys: [] },
      ),
    },
  ),
  pet: fc.oneof(
    fc.record(
      {
        name: validName,
        categoryId: fc.integer({ min: 1, max: SEEDED }),
        status: fc.constantFrom('available', 'pending', 'sold'),
      },
      { requiredKeys: ['name', 'categoryId'] },
    ),
    {
      weight: 3,
      arbitrary: fc.record(
        {
          name: fc.oneof(validName, text(120), anything),
          categoryId: id,
          status: fc.oneof(fc.constantFrom('available', 'pending', 'sold'), text(10)),
        },
        { requiredKeys: [] },
      ),
    },
  ),
  order: fc.oneof(
    fc.record(
      { petId: id, quantity: fc.oneof(fc.integer({ min: -2, max: 1002 }), anything), status: text(10) },
      { requiredKeys: [] },
    ),
    // Valid orders for the seeded pets, so that some orders succeed and the rest meet taken pets (409).
    fc.record({ petId: fc.integer({ min: 1, max: SEEDED }), quantity: fc.integer({ min: 1, max: 1000 }) }),
  ),
  rotation: fc.oneof(
    fc.record({ gracePeriodSeconds: fc.integer({ min: 0, max: 2_592_000 }) }, { requiredKeys: [] }),
    {
      weight: 3,
      arbitrary: fc.record(
        { gracePeriodSeconds: fc.oneof(fc.integer({ min: -2, max: 2_592_001 }), anything), id },
        { requiredKeys: [] },
      ),
    },
  ),
};

/** Byte sequences that are not UTF-8: stray continuation and lead bytes, overlongs, surrogates, cut-offs. */
const notUtf8 = fc.oneof(
  fc.constantFrom(
    [0xff],
    [0xfe, 0xff],
    [0xc0, 0x80],
    [0xed, 0xa0, 0x80],
    [0xe2, 0x82],
    [0xf4, 0x90, 0x80, 0x80],
  ),
  fc
    .array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 4 })
    .filter((bytes) => !isUtf8(Buffer.from(bytes))),
);

/**
 * A JSON text with bytes that are not UTF-8 put in at some point. Put inside a character of the text, such
 * bytes can complete it into valid UTF-8 again, so those bodies are left out.
 */
const withBadBytes = (text: fc.Arbitrary<string>) =>
  fc
    .tuple(text, notUtf8, fc.nat())
    .map(([json, bytes, at]) => {
      const utf8 = Buffer.from(json);
      const cut = utf8.length === 0 ? 0 : at % utf8.length;
      return Buffer.concat([utf8.subarray(0, cut), Buffer.from(bytes), utf8.subarray(cut)]);
    })
    .filter((buffer) => !isUtf8(buffer));

const body = (shape: fc.Arbitrary<Record<string, unknown>>) =>
  fc.option(
    fc.oneof(
      withBadBytes(shape.map((value) => JSON.stringify(value))),
      {
        weight: 4,
        arbitrary: fc
          .tuple(shape, extraField)
          .map(([value, extra]) => JSON.stringify({ ...value, ...extra })),
      },
      fc.json(),
      fc.string({ maxLength: 200 }),
      fc.constantFrom(
        '{"name":"x","__proto__":{"a":1}}',
        '{"constructor":{"prototype":{}}}',
        '{',
        'null',
        '[]',
      ),
      shape.map((value) => JSON.stringify(value).replace('{', '{"__proto__":{"x":1},')),
      fc.string({ maxLength: 20 }).map((value) => `{"name":"${value}"${' '.repeat(17_000)}}`),
    ),
    { nil: undefined },
  );

const query = fc
  .array(
    fc.tuple(
      fc.constantFrom('categoryId', 'status', 'x', 'petId', '__proto__'),
      fc.oneof(
        fc.constantFrom('1', '0', 'abc', 'available', 'sold', 'placed', 'lost', '1.5', '%00', '', '-1'),
        fc.constantFrom('01', '1.0', '1e0', '+1', ' 1', '0x1'),
        fc.string(),
      ),
    ),
    { maxLength: 3 },
  )
  .map((pairs) =>
    pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`,
  );

const headerValue = fc.string({ maxLength: 60 }).filter((value) => /^[\t\x20-\x7e]*$/.test(value));

/** One generated request: the method and path of an operation, and generated everything else. */
function requestFor(
  method: fc.Arbitrary<string>,
  path: fc.Arbitrary<string>,
  shape?: fc.Arbitrary<Record<string, unknown>>,
) {
  return fc.record({
    method,
    path,
    contentType: fc.option(
      fc.oneof(
        { weight: 4, arbitrary: fc.constant('application/json') },
        fc.constantFrom(
          'application/json; charset=utf-8',
          'application/json; charset=latin1',
          'text/plain',
          '',
        ),
        fc.string({ maxLength: 40 }),
      ),
      { nil: undefined },
    ),
    body:
      shape === undefined
        ? fc.option(fc.oneof(fc.string({ maxLength: 50 }), withBadBytes(fc.string({ maxLength: 20 }))), {
            nil: undefined,
            freq: 4,
          })
        : body(shape),
    ifNoneMatch: fc.option(headerValue, { nil: undefined }),
    requestId: fc.option(headerValue, { nil: undefined }),
    // Mostly the valid key, so that the generated bodies reach validation and storage.
    authorization: fc.oneof(
      { weight: 8, arbitrary: fc.constant('valid') },
      { weight: 1, arbitrary: fc.constantFrom(undefined, '', 'Bearer', 'Basic eDp5', 'Bearer ps_live_x') },
      { weight: 1, arbitrary: headerValue },
    ),
  });
}

/** Spellings of a seeded pet's id that are not plain decimal digits; Ajv alone would read each as the id. */
const nonCanonicalId = fc
  .tuple(
    fc.integer({ min: 1, max: SEEDED }),
    fc.constantFrom('%s.0', '%se0', '+%s', '0%s', '00%s', '%20%s', '%s%20', '%s.', '%s.00'),
  )
  .map(([id, spelling]) => spelling.replace('%s', String(id)));

const petPath = fc
  .oneof(
    fc.integer({ min: 1, max: SEEDED }).map(String),
    fc.constantFrom('abc', '0', '-1', '1.5', '%zz', '99999999999999999999'),
    nonCanonicalId,
  )
  .map((value) => `/v1/pets/${value}`);

/** Every operation gets its own runs (a new operation fails to compile here), and stray methods theirs. */
const TARGETS: Record<
  OperationId | 'other methods',
  fc.Arbitrary<ReturnType<typeof requestFor> extends fc.Arbitrary<infer T> ? T : never>
> = {
  listCategories: requestFor(
    fc.constant('GET'),
    query.map((q) => `/v1/categories${q}`),
  ),
  createCategory: requestFor(fc.constant('POST'), fc.constant('/v1/categories'), BODIES.category),
  listPets: requestFor(
    fc.constant('GET'),
    query.map((q) => `/v1/pets${q}`),
  ),
  createPet: requestFor(fc.constant('POST'), fc.constant('/v1/pets'), BODIES.pet),
  getPetById: requestFor(fc.constant('GET'), petPath),
  listOrders: requestFor(
    fc.constant('GET'),
    query.map((q) => `/v1/store/orders${q}`),
  ),
  placeOrder: requestFor(fc.constant('POST'), fc.constant('/v1/store/orders'), BODIES.order),
  getKey: requestFor(
    fc.constant('GET'),
    query.map((q) => `/v1/key${q}`),
  ),
  getKeyUsage: requestFor(
    fc.constant('GET'),
    query.map((q) => `/v1/key/usage${q}`),
  ),
  listKeyRequests: requestFor(
    fc.constant('GET'),
    query.map((q) => `/v1/key/requests${q}`),
  ),
  rotateKey: requestFor(fc.constant('POST'), fc.constant('/v1/key/rotate'), BODIES.rotation),
  revokeKey: requestFor(fc.constant('POST'), fc.constant('/v1/key/revoke')),
  'other methods': requestFor(
    fc.constantFrom('PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
    fc.constantFrom('/v1/categories', '/v1/pets', '/v1/pets/1', '/v1/store/orders', '/v1/nowhere'),
    BODIES.category,
  ),
};

/** Phrases of Ajv's own error messages, which every answer words afresh. */
const AJV_WORDING =
  /must (NOT|match|have required|be equal to|pass|be (integer|string|number|object|array|boolean|null)\b)|must be [<>]=/;

/** The table each create operation writes, whose generated requests must store some rows. */
const CREATES_INTO: Partial<Record<string, string>> = {
  createCategory: 'categories',
  createPet: 'pets',
  placeOrder: 'orders',
};

/** The operations that rotate or revoke the calling key: each that succeeds needs a new key for the next. */
const CHANGES_OWN_KEY = new Set(['rotateKey', 'revokeKey']);

/** Where each created resource is stored, to prove that only 201s stored rows. */
const TABLES: Record<string, string> = {
  '/v1/categories': 'categories',
  '/v1/pets': 'pets',
  '/v1/store/orders': 'orders',
};

for (const backend of BACKENDS) {
  describe(`generated requests to every operation (${backend.name})`, () => {
    let server: TestServer;
    let key: string;
    before(async () => {
      server = await startTestServer({ LOG_LEVEL: 'silent' }, { backend });
      // Limits far above the runs, so generated requests reach validation rather than 429.
      ({ key } = await server.createKey({ plan: 'enterprise', limits: { perMinute: 1e9, perDay: 1e9 } }));
      for (let i = 0; i < SEEDED; i += 1) {
        const category = await server.post('/v1/categories', { name: `Seed ${i}` });
        await server.post('/v1/pets', {
          name: `Seed ${i}`,
          categoryId: (category.body as { id: number }).id,
        });
      }
    });
    after(() => server.close());

    /** The ids stored in each table a create writes. */
    const storedIds = async () =>
      Object.fromEntries(
        await Promise.all(
          Object.values(TABLES).map(async (table) => [
            table,
            new Set(
              (await server.query<{ id: number }>(`SELECT id FROM ${table}`)).map((row) => Number(row.id)),
            ),
          ]),
        ),
      ) as Record<string, Set<number>>;

    for (const [label, requests] of Object.entries(TARGETS)) {
      test(`${label}: ${RUNS} generated requests, no 5xx, every error an Error body, only 201s stored`, async (t) => {
        // fast-check prints its seed when the property fails; the counts checked after the runs depend on
        // it as well, so it is chosen here and named in their messages: FC_SEED=<seed> replays a run.
        const seed = Number(process.env.FC_SEED ?? Math.floor(Math.random() * 2 ** 31));
        t.diagnostic(`seed ${seed} (replay with FC_SEED=${seed})`);
        let errors = 0;
        const before = await storedIds();
        const created: Record<string, Set<number>> = {
          categories: new Set(),
          pets: new Set(),
          orders: new Set(),
        };
        // The suite's key stays valid: an operation on the calling key gets keys of its own, a new one each
        // time the last was rotated or revoked.
        const ownKey = async () =>
          (await server.createKey({ plan: 'enterprise', limits: { perMinute: 1e9, perDay: 1e9 } })).key;
        let caller = CHANGES_OWN_KEY.has(label) ? await ownKey() : key;
        await fc.assert(
          fc.asyncProperty(requests, async (generated) => {
            const headers: Record<string, string> = {};
            if (generated.authorization === 'valid') headers.authorization = `Bearer ${caller}`;
            else if (generated.authorization !== undefined) headers.authorization = generated.authorization;
            if (generated.contentType !== undefined) headers['content-type'] = generated.contentType;
            if (generated.ifNoneMatch !== undefined) headers['if-none-match'] = generated.ifNoneMatch;
            if (generated.requestId !== undefined) headers['x-request-id'] = generated.requestId;
            const response = await server.server.app.inject({
              method: generated.method as 'GET',
              url: generated.path,
              headers,
              ...(generated.body !== undefined ? { payload: generated.body } : {}),
            });
            assert.ok(response.statusCode < 500, `${response.statusCode} ${response.body}`);
            if (CHANGES_OWN_KEY.has(label) && response.statusCode < 300 && generated.method === 'POST') {
              caller = await ownKey();
            }
            const table = TABLES[generated.path];
            if (response.statusCode === 201 && table !== undefined) {
              created[table]?.add((response.json() as { id: number }).id);
            }
            if (response.statusCode >= 400 && generated.method !== 'HEAD') {
              errors += 1;
              let parsed: unknown;
              try {
                parsed = JSON.parse(response.body);
              } catch {
                assert.fail(`not JSON: ${response.body}`);
              }
              assertErrorShape({
                status: response.statusCode,
                headers: new Headers(response.headers as Record<string, string>),
                text: response.body,
                body: parsed,
              });
              const { message } = parsed as { message: string };
              assert.doesNotMatch(message, AJV_WORDING, "a message in our words, not Ajv's");
            }
          }),
          { numRuns: RUNS, seed },
        );
        t.diagnostic(
          `${errors} errors; created ${Object.entries(created)
            .map(([table, ids]) => `${ids.size} ${table}`)
            .join(', ')}`,
        );
        assert.ok(errors > RUNS / 10, `the generator reaches error paths (${errors}, seed ${seed})`);
        // The rows these requests added are exactly those answered 201: every create reached storage, and
        // nothing refused stored a row.
        const after = await storedIds();
        for (const [table, ids] of Object.entries(created)) {
          const added = [...(after[table] ?? [])]
            .filter((id) => !before[table]?.has(id))
            .sort((a, b) => a - b);
          assert.deepEqual(
            added,
            [...ids].sort((a, b) => a - b),
            `${table} (seed ${seed})`,
          );
        }
        const own = CREATES_INTO[label];
        if (own !== undefined) {
          assert.ok((created[own]?.size ?? 0) > 0, `some generated ${own} were valid (seed ${seed})`);
        }
        t.diagnostic(
          Object.entries(created)
            .map(([table, ids]) => `${ids.size} ${table} created`)
            .join(', '),
        );
      });
    }

    test('a body that is not UTF-8 is always 400 malformed_json, on every create', async () => {
      const creates = fc.constantFrom(
        ['/v1/categories', BODIES.category],
        ['/v1/pets', BODIES.pet],
        ['/v1/store/orders', BODIES.order],
      ) as fc.Arbitrary<[string, fc.Arbitrary<Record<string, unknown>>]>;
      const requests = creates.chain(([path, shape]) =>
        fc.tuple(fc.constant(path), withBadBytes(shape.map((value) => JSON.stringify(value)))),
      );
      await fc.assert(
        fc.asyncProperty(requests, async ([path, payload]) => {
          const response = await server.server.app.inject({
            method: 'POST',
            url: path,
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            payload,
          });
          assert.equal(response.statusCode, 400, response.body);
          assert.equal((response.json() as { code: string }).code, 'malformed_json');
        }),
        { numRuns: RUNS / 4 },
      );
    });

    test('an id not written in plain decimal digits never names a pet', async () => {
      await fc.assert(
        fc.asyncProperty(nonCanonicalId, async (spelling) => {
          const response = await server.server.app.inject({
            method: 'GET',
            url: `/v1/pets/${spelling}`,
            headers: { authorization: `Bearer ${key}` },
          });
          assert.equal(response.statusCode, 400, `${spelling}: ${response.body}`);
          assert.match((response.json() as { message: string }).message, /^petId must be a whole number/);
        }),
        { numRuns: RUNS / 10 },
      );
    });
  });
}
