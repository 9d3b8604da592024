import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { assertErrorShape } from '../support/assertions.js';
import { startTestServer, type TestServer } from '../support/server.js';

const RUNS = 2_000;

const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD');
const contentType = fc.option(
  fc.oneof(
    { weight: 3, arbitrary: fc.constant('application/json') },
    fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
      'application/jsonx',
      '',
    ),
    fc.string({ maxLength: 40 }),
  ),
  { nil: undefined },
);
const name = fc.oneof(
  fc.string({ maxLength: 120 }),
  fc.string({ unit: 'grapheme', maxLength: 110 }),
  fc.constantFrom('', ' ', '\t\n', 'Dog', 'n'.repeat(100), 'n'.repeat(101)),
);
const categoryLike = fc.record(
  {
    name: fc.oneof(name, fc.jsonValue()),
    description: fc.oneof(fc.string({ maxLength: 1100 }), fc.jsonValue()),
    id: fc.integer(),
  },
  { requiredKeys: [] },
);
/** Valid categories, so that a good share of the generated requests reaches storage. */
const validCategory = fc.record(
  {
    name: fc.string({ minLength: 1, maxLength: 100 }).filter((text) => /\S/.test(text)),
    description: fc.string(),
  },
  { requiredKeys: ['name'] },
);
const body = fc.option(
  fc.oneof(
    { weight: 3, arbitrary: validCategory.map((value) => JSON.stringify(value)) },
    categoryLike.map((value) => JSON.stringify(value)),
    fc
      .object()
      .map((value) => JSON.stringify({ name: 'Proto', ...value }).replace('{', '{"__proto__":{"x":1},')),
    fc.json(),
    fc.string({ maxLength: 200 }),
    fc.constantFrom(
      '{"name":"x","__proto__":{"a":1}}',
      '{"constructor":{"prototype":{}}}',
      '{',
      'null',
      '[]',
    ),
    fc.string({ maxLength: 20 }).map((text) => `{"name":"${text}"${' '.repeat(17_000)}}`),
  ),
  { nil: undefined },
);
const headerValue = fc.string({ maxLength: 60 }).filter((value) => /^[\t\x20-\x7e]*$/.test(value));
const requestWith = (method: fc.Arbitrary<string>) =>
  fc.record({
    method,
    path: fc.constantFrom(
      '/v1/categories',
      '/v1/categories?x=1',
      '/v1/categories?name=%00',
      '/v1/categories/',
    ),
    contentType,
    body,
    ifNoneMatch: fc.option(headerValue, { nil: undefined }),
    requestId: fc.option(headerValue, { nil: undefined }),
    // Mostly the valid key, so that the generated bodies reach validation and storage.
    authorization: fc.oneof(
      { weight: 8, arbitrary: fc.constant('valid') },
      { weight: 1, arbitrary: fc.constantFrom(undefined, '', 'Bearer', 'Basic eDp5', 'Bearer ps_live_x') },
      { weight: 1, arbitrary: headerValue },
    ),
  });

/** Each operation gets its own runs, and the other methods on its path get theirs. */
const TARGETS: [string, fc.Arbitrary<string>][] = [
  ['listCategories (GET)', fc.constant('GET')],
  ['createCategory (POST)', fc.constant('POST')],
  ['any method', method],
];

describe('generated requests to every operation', () => {
  let server: TestServer;
  let key: string;
  before(async () => {
    server = await startTestServer({ LOG_LEVEL: 'silent' });
    // Limits far above the runs, so generated requests reach validation rather than 429.
    ({ key } = await server.createKey({ plan: 'enterprise', limits: { perMinute: 1e9, perDay: 1e9 } }));
  });
  after(() => server.close());

  const created = new Set<number>();
  for (const [label, methods] of TARGETS) {
    test(`${label}: ${RUNS} generated requests, no 5xx, every error an Error body`, async () => {
      let errors = 0;
      let successes = 0;
      await fc.assert(
        fc.asyncProperty(requestWith(methods), async (generated) => {
          const headers: Record<string, string> = {};
          if (generated.authorization === 'valid') headers.authorization = `Bearer ${key}`;
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
          if (response.statusCode < 400) successes += 1;
          if (response.statusCode === 201) created.add((response.json() as { id: number }).id);
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
          }
        }),
        { numRuns: RUNS },
      );
      assert.ok(errors > RUNS / 10, `the generator reaches error paths (${errors})`);
      assert.ok(successes > 0, 'the generator reaches the happy path');
    });
  }

  test('the only stored rows are those answered 201', () => {
    assert.ok(created.size > 0);
    const db = new Database(server.file, { readonly: true });
    try {
      const ids = db.prepare('SELECT id FROM categories').pluck().all() as number[];
      assert.deepEqual(
        ids.toSorted((a, b) => a - b),
        [...created].toSorted((a, b) => a - b),
      );
    } finally {
      db.close();
    }
  });
});
