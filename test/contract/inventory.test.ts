import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OPERATIONS } from '../../src/contract/index.js';
import { toRoutePath } from '../../src/http/index.js';
import { servedDocument, startTestServer, type TestServer } from '../support/server.js';

type Document = {
  openapi: string;
  info: { version: string };
  servers: { url: string }[];
  paths: Record<
    string,
    Record<string, { operationId: string; security: unknown; responses: Record<string, unknown> }>
  >;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
};

/** The scope each operation needs, written out: the document is built from the contract, so reading it back could not fail. */
const SCOPE_OF: Record<string, string | undefined> = {
  listCategories: 'categories:read',
  createCategory: 'categories:write',
  listPets: 'pets:read',
  createPet: 'pets:write',
  getPetById: 'pets:read',
  listOrders: 'orders:read',
  placeOrder: 'orders:write',
  getKey: undefined,
};

describe('the OpenAPI document is the contract', () => {
  let server: TestServer;
  let document: Document;
  before(async () => {
    server = await startTestServer({
      PETSTORE_PRODUCTION_URL: 'https://api.example.test/v1',
      PETSTORE_STAGING_URL: 'https://staging.example.test/v1',
    });
    document = await servedDocument('/openapi.json', server);
  });
  after(() => server.close());

  test('version, servers and security scheme', () => {
    assert.equal(document.openapi, '3.1.0');
    // The spec's 1.0.0 was the first release; the changelog's newest is served (test/contract/versioning.test.ts).
    assert.equal(document.info.version, '1.4.0');
    assert.deepEqual(
      document.servers.map((entry) => entry.url),
      ['https://api.example.test/v1', 'https://staging.example.test/v1'],
    );
    assert.deepEqual(document.components.securitySchemes.bearerAuth, {
      type: 'http',
      scheme: 'bearer',
      description: 'An API key sent as `Authorization: Bearer <API_KEY>`.',
    });
    for (const name of ['NewCategory', 'Category', 'Error'])
      assert.ok(document.components.schemas[name], name);
  });

  test('without configured URLs the one server is /v1 on the origin the document came from', async (t) => {
    const bare = await startTestServer();
    t.after(() => bare.close());
    const served = (await (await fetch(`${bare.url}/openapi.json`)).json()) as Document;
    assert.deepEqual(served.servers, [
      { url: '/v1', description: 'This server (production)', 'x-internal': false },
    ]);
    assert.doesNotMatch(JSON.stringify(served), /petstore\.example/);
  });

  test('every operation is secured by bearerAuth and documents its error answers', () => {
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
    // Written out: the document is built from OPERATIONS, so comparing with it could not fail.
    assert.deepEqual(operations.map((operation) => operation.operationId).sort(), [
      'createCategory',
      'createPet',
      'getKey',
      'getKeyHead',
      'getKeyUsage',
      'getKeyUsageHead',
      'getPetById',
      'getPetByIdHead',
      'listCategories',
      'listCategoriesHead',
      'listKeyRequests',
      'listKeyRequestsHead',
      'listOrders',
      'listOrdersHead',
      'listPets',
      'listPetsHead',
      'placeOrder',
      'revokeKey',
      'rotateKey',
    ]);
    for (const operation of operations) {
      // The scope a key needs is the role its requirement names (a HEAD needs its GET's); the own key, none.
      const scope = SCOPE_OF[operation.operationId.replace(/Head$/, '')];
      assert.deepEqual(
        operation.security,
        [{ bearerAuth: scope === undefined ? [] : [scope] }],
        operation.operationId,
      );
      if (scope !== undefined) assert.ok(operation.responses['403'], `${operation.operationId} 403`);
      for (const status of ['401', '500'])
        assert.ok(operation.responses[status], `${operation.operationId} ${status}`);
    }
    const create = document.paths['/categories']?.post;
    for (const status of ['201', '400', '413', '415'])
      assert.ok(create?.responses[status], `createCategory ${status}`);
    assert.ok(document.paths['/categories']?.get?.responses['304'], 'listCategories 304');
  });

  test('every documented operation is served, and every served /v1 route is documented', () => {
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} /v1${toRoutePath(path)}`),
      ),
    );
    const served = new Set(
      server.server.app.servedRoutes
        .filter((route) => route.url.startsWith('/v1') && route.config?.methodNotAllowed !== true)
        .map((route) => `${route.method} ${route.url}`),
    );
    assert.deepEqual([...served].sort(), [...documented].sort());
    // HEAD comes with every GET (exposeHeadRoutes), and the document lists it beside the GET.
    const gets = OPERATIONS.filter((operation) => operation.method === 'GET').length;
    assert.equal(documented.size, OPERATIONS.length + gets);
  });

  test('a HEAD operation answers as its GET: same statuses and headers, no body', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      const { get, head } = item as Record<string, { responses: Record<string, unknown> } | undefined>;
      assert.equal(head === undefined, get === undefined, path);
      if (get === undefined || head === undefined) continue;
      assert.deepEqual(Object.keys(head.responses), Object.keys(get.responses), path);
      for (const response of Object.values(head.responses)) {
        assert.equal((response as { content?: unknown }).content, undefined, `${path}: no body`);
      }
    }
  });

  test('the 405 answers cover every other method of each documented path', () => {
    const fallbacks = server.server.app.servedRoutes.filter(
      (route) => route.config?.methodNotAllowed === true,
    );
    const forCategories = fallbacks
      .filter((route) => route.url === '/v1/categories')
      .map((route) => route.method);
    assert.deepEqual(forCategories.sort(), ['DELETE', 'OPTIONS', 'PATCH', 'PUT']);
  });
});

describe('the admin API document is its contract', () => {
  let server: TestServer;
  let document: Document;
  before(async () => {
    server = await startTestServer();
    document = await servedDocument('/admin/openapi.json', server);
  });
  after(() => server.close());

  test('every operation is secured by an admin token and documents 401 and 429', () => {
    assert.deepEqual(document.servers, [
      { url: '/admin/v1', description: 'This server (production)', 'x-internal': false },
    ]);
    assert.deepEqual(Object.keys(document.components.securitySchemes), ['adminToken']);
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
    // Written out: the document is built from the contract, so comparing with it could not fail.
    assert.deepEqual(operations.map((operation) => operation.operationId).sort(), [
      'addDomain',
      'createAdminToken',
      'createApiKey',
      'createWebhook',
      'deleteWebhook',
      'endPersonSessions',
      'endSession',
      'getApiKey',
      'getApiKeyHead',
      'getDomain',
      'getDomainHead',
      'getDomainSettings',
      'getDomainSettingsHead',
      'getRequest',
      'getRequestHead',
      'getSession',
      'getSessionHead',
      'getUsage',
      'getUsageHead',
      'getWebhook',
      'getWebhookDelivery',
      'getWebhookDeliveryHead',
      'getWebhookHead',
      'listAdminTokens',
      'listAdminTokensHead',
      'listApiKeys',
      'listApiKeysHead',
      'listAuditEvents',
      'listAuditEventsHead',
      'listDomains',
      'listDomainsHead',
      'listKeyUsage',
      'listKeyUsageHead',
      'listPeople',
      'listPeopleHead',
      'listRequests',
      'listRequestsHead',
      'listWebhookDeliveries',
      'listWebhookDeliveriesHead',
      'listWebhooks',
      'listWebhooksHead',
      'removeDomain',
      'replayFailedWebhookDeliveries',
      'replayWebhookDelivery',
      'revokeAdminToken',
      'revokeApiKey',
      'rotateApiKey',
      'rotateWebhookSecret',
      'startSession',
      'testWebhook',
      'unbanApiKey',
      'updateApiKey',
      'updateWebhook',
      'verifyDomain',
    ]);
    for (const operation of operations) {
      assert.deepEqual(operation.security, [{ adminToken: [] }], operation.operationId);
      for (const status of ['401', '429', '500'])
        assert.ok(operation.responses[status], `${operation.operationId} ${status}`);
    }
    assert.doesNotMatch(JSON.stringify(document.components.schemas), /digest/);
  });

  test('every documented operation is served, and every served /admin/v1 route is documented', () => {
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} /admin/v1${toRoutePath(path)}`),
      ),
    );
    const served = new Set(
      server.server.app.servedRoutes
        .filter((route) => route.url.startsWith('/admin/v1') && route.config?.methodNotAllowed !== true)
        .map((route) => `${route.method} ${route.url}`),
    );
    assert.deepEqual([...served].sort(), [...documented].sort());
  });
});
