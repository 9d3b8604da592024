import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type OperationId, SCOPES } from '../../src/contract/index.js';
import { generateKey } from '../../src/keys/index.js';
import { assertError, assertRateLimitHeaders } from './assertions.js';
import type { JsonResponse, TestServer } from './server.js';

export interface ProtectedRoute {
  method: string;
  /** A concrete path, path parameters filled in. */
  path: string;
  /** A valid body for the route, if it takes one. */
  body?: unknown;
  /** The scope a key needs for it, as the document says; none for reading one's own key. */
  scope?: string;
  /** Whether it spends quota, as the document says (`x-counts-against-quota`). */
  spendsQuota?: boolean;
  /** A limit of its own instead of the plan's, as the document says (`x-rate-limit`). */
  ownLimit?: string;
  /** It rotates or revokes the calling key: a request that must pass sends a key of its own. */
  changesOwnKey?: true;
}

/** A valid request for each operation, given ids made for the suite: a new operation fails to compile here. */
const SAMPLES: Record<
  OperationId,
  (ids: { categoryId: number; petId: number; spareId: number }) => Omit<ProtectedRoute, 'method'>
> = {
  listCategories: () => ({ path: '/v1/categories' }),
  createCategory: () => ({ path: '/v1/categories', body: { name: 'Security' } }),
  listPets: () => ({ path: '/v1/pets' }),
  createPet: ({ categoryId }) => ({ path: '/v1/pets', body: { name: 'Rex', categoryId } }),
  getPetById: ({ petId }) => ({ path: `/v1/pets/${petId}` }),
  listOrders: () => ({ path: '/v1/store/orders' }),
  placeOrder: ({ spareId }) => ({ path: '/v1/store/orders', body: { petId: spareId, quantity: 1 } }),
  getKey: () => ({ path: '/v1/key' }),
  getKeyUsage: () => ({ path: '/v1/key/usage' }),
  listKeyRequests: () => ({ path: '/v1/key/requests' }),
  rotateKey: () => ({ path: '/v1/key/rotate', body: { gracePeriodSeconds: 60 }, changesOwnKey: true }),
  revokeKey: () => ({ path: '/v1/key/revoke', changesOwnKey: true }),
};

/**
 * Every operation of the served OpenAPI document, as a concrete valid request: new operations join by
 * themselves, and the document and the samples must agree.
 */
export async function protectedRoutes(server: TestServer): Promise<ProtectedRoute[]> {
  const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
    paths: Record<
      string,
      Record<
        string,
        {
          operationId: string;
          security: { bearerAuth: string[] }[];
          'x-counts-against-quota'?: boolean;
          'x-rate-limit'?: string;
        }
      >
    >;
  };
  const category = await server.post('/v1/categories', { name: 'Suite' });
  const categoryId = (category.body as { id: number }).id;
  const pet = async () =>
    ((await server.post('/v1/pets', { name: 'Suite', categoryId })).body as { id: number }).id;
  const ids = { categoryId, petId: await pet(), spareId: await pet() };
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => {
      // HEAD is its GET without the body: the same request.
      const operationId = (method === 'head' ? item.get : operation)?.operationId as OperationId;
      const sample = SAMPLES[operationId](ids);
      assert.equal(sample.path.replace(/\/\d+$/, '/{petId}'), `/v1${path}`, operationId);
      const scope = operation.security[0]?.bearerAuth[0];
      return {
        method: method.toUpperCase(),
        ...sample,
        ...(scope === undefined ? {} : { scope }),
        spendsQuota: operation['x-counts-against-quota'] !== false,
        ...(operation['x-rate-limit'] === undefined ? {} : { ownLimit: operation['x-rate-limit'] }),
      };
    }),
  );
}

/** Changes the last random character of a key so that its checksum no longer matches. */
export function breakChecksum(key: string): string {
  const index = key.length - 7;
  const replacement = key[index] === 'A' ? 'B' : 'A';
  return key.slice(0, index) + replacement + key.slice(index + 1);
}

type Credential = (server: TestServer) => Promise<Record<string, string>>;

/** The RFC 6750 challenge of each 401. */
const CHALLENGES = {
  missing_api_key: 'Bearer realm="petstore"',
  invalid_api_key: 'Bearer realm="petstore", error="invalid_token"',
  api_key_expired: 'Bearer realm="petstore", error="invalid_token", error_description="The API key expired"',
} as const;

/** The cases every protected route must refuse with 401, and the code each must give. */
export const REFUSED_CREDENTIALS: [string, keyof typeof CHALLENGES, Credential][] = [
  ['no key', 'missing_api_key', async () => ({ authorization: '' })],
  ['another scheme', 'missing_api_key', async (server) => ({ authorization: `Basic ${server.key}` })],
  ['an empty bearer token', 'missing_api_key', async () => ({ authorization: 'Bearer ' })],
  ['a malformed key', 'invalid_api_key', async () => ({ authorization: 'Bearer not-a-key' })],
  [
    'a bad checksum',
    'invalid_api_key',
    async (server) => ({ authorization: `Bearer ${breakChecksum(server.key)}` }),
  ],
  [
    'an unknown key',
    'invalid_api_key',
    async () => ({ authorization: `Bearer ${generateKey('production')}` }),
  ],
  [
    'a revoked key',
    'invalid_api_key',
    async (server) => {
      const { id, key } = await server.createKey({ plan: 'free', name: 'to revoke' });
      await server.revokeKey(id);
      return { authorization: `Bearer ${key}` };
    },
  ],
  [
    'a staging key on production',
    'invalid_api_key',
    async () => ({ authorization: `Bearer ${generateKey('staging')}` }),
  ],
  [
    'an expired key',
    'api_key_expired',
    async (server) => {
      // Stored as it would be a second after its expiry: no command makes a key that is already expired.
      const key = await server.insertKey({
        expiresAt: new Date(server.deps.clock.now() - 1_000).toISOString(),
      });
      return { authorization: `Bearer ${key}` };
    },
  ],
];

function send(
  server: TestServer,
  route: ProtectedRoute,
  headers: Record<string, string>,
): Promise<JsonResponse> {
  const withBody = route.body !== undefined;
  return server.call(route.path, {
    method: route.method,
    headers: { ...(withBody ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(withBody ? { body: JSON.stringify(route.body) } : {}),
  });
}

/** An error answer: the Error body, or for HEAD, which has no body, the status and the request id. */
function assertAnswer(route: ProtectedRoute, response: JsonResponse, status: number, code: string): void {
  if (route.method !== 'HEAD') {
    assertError(response, status, code);
    return;
  }
  assert.equal(response.status, status);
  assert.equal(response.text, '');
  assert.match(response.headers.get('x-request-id') ?? '', /\S/);
}

/**
 * The shared security suite: registers, for every protected route, one test per refused credential, each
 * expecting 401 with the Error body and the RFC 6750 challenge, and one test that the valid key passes.
 */
export function securitySuite(getServer: () => TestServer, routes: () => ProtectedRoute[]): void {
  test('every protected route refuses every bad credential with 401 and a challenge', async (t) => {
    const server = getServer();
    assert.ok(routes().length > 0);
    for (const route of routes()) {
      for (const [label, code, credential] of REFUSED_CREDENTIALS) {
        await t.test(`${route.method} ${route.path}: ${label}`, async () => {
          const response = await send(server, route, await credential(server));
          assertAnswer(route, response, 401, code);
          assertRateLimitHeaders(response);
          assert.equal(response.headers.get('www-authenticate'), CHALLENGES[code]);
        });
      }
      if (route.scope !== undefined) {
        const scope = route.scope;
        await t.test(`${route.method} ${route.path}: a key without ${scope} gets 403`, async () => {
          const { key } = await server.createKey({
            plan: 'pro',
            scopes: SCOPES.filter((other) => other !== scope),
          });
          const response = await send(server, route, { authorization: `Bearer ${key}` });
          assertAnswer(route, response, 403, 'insufficient_scope');
          assertRateLimitHeaders(response);
          assert.equal(
            response.headers.get('www-authenticate'),
            `Bearer realm="petstore", error="insufficient_scope", scope="${scope}"`,
          );
        });
      }
      await t.test(`${route.method} ${route.path}: a key over its limit is refused, or told so`, async () => {
        // One request a day: the second is refused whatever minute it falls in.
        const { key } = await server.createKey({ plan: 'enterprise', limits: { perMinute: 1, perDay: 1 } });
        const authorization = { authorization: `Bearer ${key}` };
        await send(server, { method: 'GET', path: '/v1/categories' }, authorization);
        const response = await send(server, route, authorization);
        assertRateLimitHeaders(response);
        if (route.ownLimit !== undefined) {
          // A limit of its own (reading one's request log): answered while the plan's day is spent, and its
          // headers describe that limit, with one call of it spent.
          assert.equal(response.status, 200, response.text);
          const limit = Number(response.headers.get('x-ratelimit-limit'));
          assert.equal(response.headers.get('x-ratelimit-remaining'), String(limit - 1));
          return;
        }
        if (route.spendsQuota === false) {
          // Reading one's own key spends nothing, and answers while the key is limited.
          assert.equal(response.status, 200);
          assert.equal(response.headers.get('x-ratelimit-remaining'), '0');
          return;
        }
        assertAnswer(route, response, 429, 'rate_limit_exceeded');
        assert.match(response.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
      });
      await t.test(`${route.method} ${route.path}: the valid key passes`, async () => {
        const own = route.changesOwnKey
          ? (await server.createKey({ plan: 'pro', name: 'own' })).key
          : undefined;
        const response = await send(
          server,
          route,
          own === undefined ? {} : { authorization: `Bearer ${own}` },
        );
        assert.ok(response.status < 400, `${response.status} ${response.text}`);
        assertRateLimitHeaders(response);
      });
    }
  });
}

/**
 * One header of each kind a proxy adds when it forwards a request (docs/observability.md, "Metrics": the rule of the
 * loopback-only routes), written out here so that the rule in the code is checked against the guide's.
 */
export const FORWARDING_HEADERS: readonly [string, string][] = [
  ['forwarded', 'for=203.0.113.9'],
  ['via', '1.1 proxy.example'],
  ['x-forwarded-for', '203.0.113.9'],
  ['x-forwarded-host', 'api.example.test'],
  ['x-forwarded-proto', 'https'],
  ['x-real-ip', '203.0.113.9'],
  ['true-client-ip', '203.0.113.9'],
  ['cf-connecting-ip', '203.0.113.9'],
  ['x-client-ip', '203.0.113.9'],
  ['fastly-client-ip', '203.0.113.9'],
  ['x-cluster-client-ip', '203.0.113.9'],
];
