import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN_API, V1_API } from '../../src/contract/index.js';
import { DESCRIBED_KEYWORDS } from '../../src/http/index.js';
import { assertError, eventually } from '../support/assertions.js';
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

/** A parameter's schema, as far as the bounds test reads it. */
interface ParameterSchema {
  type?: string;
  maxLength?: number;
  maximum?: number;
  examples?: unknown[];
}

const propertiesOf = (schema: unknown) =>
  ((schema as { properties?: Record<string, ParameterSchema> } | undefined)?.properties ?? {}) as Record<
    string,
    ParameterSchema
  >;

/** A value a path parameter takes: its example, or 1. */
const validValue = (schema: ParameterSchema) => String(schema.examples?.[0] ?? 1);

/** A value one past the parameter's stated bound, and the words of its refusal; none without a bound. */
function pastBound(schema: ParameterSchema): { value: string; message: string } | undefined {
  if (schema.maxLength !== undefined)
    return {
      value: 'x'.repeat(schema.maxLength + 1),
      message: `must be at most ${schema.maxLength} characters long`,
    };
  if (schema.maximum !== undefined)
    return { value: String(schema.maximum + 1), message: `must be at most ${schema.maximum}` };
  return undefined;
}

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

  test('every maxLength and maximum a parameter states is the server’s: one past it is 400 naming the bound', async () => {
    const { token } = await server.createAdminToken('bounds');
    let checked = 0;
    for (const api of [V1_API, ADMIN_API]) {
      const get = (pathAndQuery: string) =>
        api === V1_API ? server.call(`/v1${pathAndQuery}`) : server.admin(token, pathAndQuery);
      for (const operation of api.operations.filter((operation) => operation.method === 'GET')) {
        const path = propertiesOf(
          operation.params === undefined ? undefined : api.parameters[operation.params],
        );
        const query = propertiesOf(api.parameters[operation.query ?? 'NoQuery']);
        const valid = Object.fromEntries(
          Object.entries(path).map(([name, schema]) => [name, validValue(schema)]),
        );
        for (const [location, properties] of [
          ['path', path],
          ['query', query],
        ] as const) {
          for (const [name, schema] of Object.entries(properties)) {
            const bound = pastBound(schema);
            if (bound === undefined) continue;
            const values = location === 'path' ? { ...valid, [name]: bound.value } : valid;
            const url =
              operation.path.replace(/\{(\w+)\}/g, (_, param: string) =>
                encodeURIComponent(values[param] ?? ''),
              ) + (location === 'query' ? `?${new URLSearchParams({ [name]: bound.value })}` : '');
            const response = await get(url);
            assertError(response, 400, 'validation_failed');
            assert.equal((response.body as { message: string }).message, `${name} ${bound.message}`, url);
            checked += 1;
          }
        }
      }
    }
    assert.ok(checked >= 30, `${checked} bounds checked`);
  });

  test('nothing was created by a refused create', async () => {
    const before = await server.query<{ n: number }>('SELECT count(*) AS n FROM categories');
    const refused = await server.post('/v1/categories?dryRun=true', { name: 'Not stored' });
    assertError(refused, 400, 'validation_failed');
    const after = await server.query<{ n: number }>('SELECT count(*) AS n FROM categories');
    assert.equal(after[0]?.n, before[0]?.n);
  });
});

describe('path parameters of any length pass the hooks of every request', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  /** The lines the server logged about one request, by its id. */
  const linesOf = (requestId: string | null) =>
    server.logs.filter((line) => line.includes(`"reqId":"${requestId}"`));

  test('a pet id of 101 digits is 401 without a key and 400 with one: counted, limited, logged once', async () => {
    for (const digits of [101, 8_000]) {
      const path = `/v1/pets/${'1'.repeat(digits)}`;
      const stranger = await server.call(path, { headers: { authorization: '' } });
      assertError(stranger, 401, 'missing_api_key');
      assert.match(stranger.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/, 'limited as a stranger');
      const known = await server.call(path);
      assertError(known, 400, 'validation_failed');
      assert.equal((known.body as { message: string }).message, 'petId must be at most 9007199254740991');
      assert.match(known.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/, 'counted against the key');
      for (const answer of [stranger, known]) {
        const id = answer.headers.get('x-request-id');
        // An error line would come before the access line: once that is written, both are.
        const lines = await eventually(`the access line of ${id}`, () => {
          const found = linesOf(id);
          return found.some((line) => line.includes('"log":"access"')) && found;
        });
        assert.deepEqual(
          lines.filter((line) => !/"level":[34]0,/.test(line)),
          [],
          'no warning or error line',
        );
        const access = lines.filter((line) => line.includes('"log":"access"'));
        assert.equal(access.length, 1);
        assert.match(access[0] ?? '', /"route":"\/v1\/pets\/\{petId\}"/);
        assert.ok(
          lines.every((line) => line.length < 1_000),
          'no line holds the path',
        );
      }
    }
    const metrics = (await server.call('/metrics')).text;
    assert.doesNotMatch(metrics, /status="500"/);
  });

  test('an admin key id of 101 characters is 400; a domain of 156 characters can be added, read, verified and removed', async () => {
    const { token } = await server.createAdminToken('long parameters');
    const admin = (method: string, path: string, json?: unknown) =>
      server.admin(token, path, { method, ...(json === undefined ? {} : { json }) });
    assertError(await admin('GET', `/keys/${'k'.repeat(101)}`), 400, 'validation_failed');
    const name = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(30)}.com`;
    assert.equal(name.length, 156);
    assert.equal((await admin('POST', '/domains', { name })).status, 201);
    assert.equal((await admin('GET', `/domains/${name}`)).status, 200);
    assert.equal((await admin('POST', `/domains/${name}/verify`)).status, 200);
    assert.equal((await admin('DELETE', `/domains/${name}`)).status, 200);
    assertError(await admin('GET', `/domains/${name}`), 404, 'not_found');
    const longest = `${'a.'.repeat(126)}com`;
    assert.equal(longest.length, 255);
    assertError(await admin('GET', `/domains/${longest}`), 400, 'validation_failed');
  });
});
