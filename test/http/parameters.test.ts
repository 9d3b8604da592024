import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN_API, V1_API } from '../../src/contract/index.js';
import { DESCRIBED_KEYWORDS } from '../../src/http/index.js';
import { assertError } from '../support/assertions.js';
import { type ProtectedRoute, protectedRoutes } from '../support/security.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** Keywords that describe a value and never fail validation. */
const ANNOTATIONS = new Set(['description', 'examples', 'default', 'format', 'title']);

/** Every keyword used anywhere in a schema, nested schemas included. */
function keywordsOf(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) keywordsOf(item, into);
  } else if (typeof schema === 'object' && schema !== null) {
    for (const [keyword, value] of Object.entries(schema)) {
      into.add(keyword);
      if (keyword === 'properties') for (const property of Object.values(value)) keywordsOf(property, into);
      else if (keyword === 'items' || keyword === 'anyOf' || keyword === 'oneOf') keywordsOf(value, into);
    }
  }
  return into;
}

test('every validation keyword of the contract is worded by us, never by Ajv', () => {
  const used = keywordsOf(
    [V1_API, ADMIN_API].flatMap((api) => [...Object.values(api.schemas), ...Object.values(api.parameters)]),
  );
  // `properties` and `items` hold schemas; `patternProperties` only a response's free-form details.
  const described = new Set<string>([...DESCRIBED_KEYWORDS, 'properties', 'items', 'patternProperties']);
  const unworded = [...used].filter((keyword) => !described.has(keyword) && !ANNOTATIONS.has(keyword));
  assert.deepEqual(unworded, []);
});

describe('query parameters: one rule for every operation', () => {
  let server: TestServer;
  let routes: ProtectedRoute[];
  before(async () => {
    server = await startTestServer();
    routes = await protectedRoutes(server);
  });
  after(() => server.close());

  test('a parameter the operation does not list is refused with 400 naming it', async () => {
    assert.ok(routes.length >= 11, 'every documented operation, HEAD included');
    for (const route of routes) {
      const response = await server.call(`${route.path}?unknown=1`, {
        method: route.method,
        ...(route.body === undefined
          ? {}
          : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(route.body) }),
      });
      if (route.method === 'HEAD') {
        assert.equal(response.status, 400, `${route.method} ${route.path}`);
        continue;
      }
      assertError(response, 400, 'validation_failed');
      assert.equal(
        (response.body as { message: string }).message,
        "unknown query parameter 'unknown'",
        `${route.method} ${route.path}`,
      );
    }
  });

  test('a long unknown name is not echoed whole', async () => {
    const response = await server.call(`/v1/categories?${'x'.repeat(5000)}=1`);
    assertError(response, 400, 'validation_failed');
    assert.equal(
      (response.body as { message: string }).message,
      `unknown query parameter '${'x'.repeat(100)}…'`,
    );
  });

  test('nothing was created by a refused create', async () => {
    const before = await server.query<{ n: number }>('SELECT count(*) AS n FROM categories');
    const refused = await server.post('/v1/categories?dryRun=true', { name: 'Not stored' });
    assertError(refused, 400, 'validation_failed');
    const after = await server.query<{ n: number }>('SELECT count(*) AS n FROM categories');
    assert.equal(after[0]?.n, before[0]?.n);
  });
});
