import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { PREFLIGHT_MAX_AGE } from '../../src/cors/index.js';
import { launchBrowser } from '../support/browser.js';
import { request, startTestServer, type TestServer } from '../support/server.js';

/** Written out: the headers a browser client reads, which docs/api.md lists. */
const EXPOSED = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit',
  'ratelimit-policy',
  'retry-after',
  'etag',
  'x-request-id',
  'deprecation',
  'sunset',
  'link',
  'idempotent-replayed',
];

const listOf = (header: string | null) => (header ?? '').split(',').map((name) => name.trim().toLowerCase());

describe('CORS', () => {
  /** Serves an empty page, so a browser has an origin of its own to call the API from. */
  let pages: http.Server;
  let pagePort: number;
  let server: TestServer;
  let allowed: string;
  before(async () => {
    pages = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>client</title>');
    });
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pagePort = (pages.address() as AddressInfo).port;
    allowed = `http://127.0.0.1:${pagePort}`;
    server = await startTestServer({ CORS_ORIGINS: `https://other.example, ${allowed}` });
  });
  after(async () => {
    await server.close();
    pages.close();
  });

  test('a preflight answers 204 with the methods, headers and max age, needs no key and spends no quota', async () => {
    const { key } = await server.createKey({ plan: 'free' });
    const first = await server.call('/v1/categories', { headers: { authorization: `Bearer ${key}` } });
    const remaining = Number(first.headers.get('x-ratelimit-remaining'));
    for (let i = 0; i < 3; i += 1) {
      const preflight = await request(`${server.url}/v1/categories`, {
        method: 'OPTIONS',
        headers: {
          origin: allowed,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, idempotency-key',
        },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), allowed);
      assert.deepEqual(listOf(preflight.headers.get('access-control-allow-methods')), [
        'get',
        'head',
        'post',
      ]);
      assert.deepEqual(listOf(preflight.headers.get('access-control-allow-headers')), [
        'authorization',
        'content-type',
        'idempotency-key',
        'if-none-match',
      ]);
      assert.equal(preflight.headers.get('access-control-max-age'), String(PREFLIGHT_MAX_AGE));
      assert.equal(preflight.headers.get('x-ratelimit-remaining'), null, 'no limiter saw it');
    }
    const next = await server.call('/v1/categories', { headers: { authorization: `Bearer ${key}` } });
    assert.equal(Number(next.headers.get('x-ratelimit-remaining')), remaining - 1, 'only the GET counted');
  });

  test('answers to a listed origin carry Allow-Origin, Vary and every header a client reads', async () => {
    for (const path of ['/v1/categories', '/v1/pets/999999', '/v1/nowhere']) {
      const answer = await server.call(path, { headers: { origin: allowed } });
      assert.equal(answer.headers.get('access-control-allow-origin'), allowed, path);
      assert.match(answer.headers.get('vary') ?? '', /Origin/);
      assert.deepEqual(
        listOf(answer.headers.get('access-control-expose-headers')).sort(),
        [...EXPOSED].sort(),
      );
    }
    const refused = await request(`${server.url}/v1/categories`, { headers: { origin: allowed } });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('access-control-allow-origin'), allowed, 'a 401 is readable too');
  });

  test('an origin not on the list gets no CORS header', async () => {
    const answer = await server.call('/v1/categories', { headers: { origin: 'https://evil.example' } });
    assert.equal(answer.status, 200);
    for (const [name] of answer.headers) assert.ok(!name.startsWith('access-control-'), name);
    const preflight = await request(`${server.url}/v1/categories`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    assert.notEqual(preflight.status, 204);
    for (const [name] of preflight.headers) assert.ok(!name.startsWith('access-control-'), name);
  });

  test('without CORS_ORIGINS no answer has a CORS header; with * every origin is allowed', async (t) => {
    const closed = await startTestServer();
    const open = await startTestServer({ CORS_ORIGINS: '*' });
    t.after(async () => {
      await closed.close();
      await open.close();
    });
    const plain = await closed.call('/v1/categories', { headers: { origin: allowed } });
    for (const [name] of plain.headers) assert.ok(!name.startsWith('access-control-'), name);
    const any = await open.call('/v1/categories', { headers: { origin: 'https://anyone.example' } });
    assert.equal(any.headers.get('access-control-allow-origin'), '*');
  });

  test('with * only the API and its documents get CORS: never /metrics, the TLS ask, the admin API or health', async (t) => {
    const open = await startTestServer({ CORS_ORIGINS: '*' });
    t.after(() => open.close());
    const { token } = await open.createAdminToken('cors');
    const origin = { origin: 'https://anyone.example' };
    for (const [path, headers] of [
      ['/metrics', {}],
      ['/internal/tls/ask?domain=docs.example.test', {}],
      ['/healthz', {}],
      ['/readyz', {}],
      ['/admin/v1/keys', { authorization: `Bearer ${token}` }],
      ['/docs', {}],
    ] as const) {
      for (const answer of [
        await request(`${open.url}${path}`, { headers: { ...origin, ...headers } }),
        await request(`${open.url}${path}`, {
          method: 'OPTIONS',
          headers: { ...origin, 'access-control-request-method': 'GET' },
        }),
      ]) {
        assert.notEqual(answer.status, 204, path);
        for (const [name] of answer.headers)
          assert.ok(!name.startsWith('access-control-'), `${path}: ${name}`);
      }
    }
    for (const path of ['/v1/categories', '/openapi.json', '/admin/openapi.json']) {
      const answer = await request(`${open.url}${path}`, { headers: origin });
      assert.equal(answer.headers.get('access-control-allow-origin'), '*', path);
    }
  });

  test('an OPTIONS without Access-Control-Request-Method is no preflight: it is answered as any request', async () => {
    const answer = await server.call('/v1/categories', { method: 'OPTIONS', headers: { origin: allowed } });
    assert.equal(answer.status, 405, answer.text);
    assert.equal(answer.headers.get('allow'), 'GET, HEAD, POST');
    assert.equal(answer.headers.get('access-control-allow-methods'), null);
    const stranger = await request(`${server.url}/v1/categories`, {
      method: 'OPTIONS',
      headers: { origin: allowed },
    });
    assert.equal(stranger.status, 401, 'no key: refused as any request without one');
  });

  describe('in a real browser', () => {
    let browser: Browser;
    before(async () => {
      browser = await launchBrowser();
    });
    after(() => browser?.close());

    /** Runs `fetch` in a page of `origin`: the answer's status and the headers script can read, or the error. */
    async function fetchFrom(origin: string, key: string, init: { method?: string; body?: string } = {}) {
      const page = await browser.newPage();
      try {
        await page.goto(`${origin}/`);
        return await page.evaluate(
          async ({ url, key, init }) => {
            try {
              const response = await fetch(url, {
                ...init,
                headers: {
                  authorization: `Bearer ${key}`,
                  ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
                },
              });
              return {
                status: response.status,
                remaining: response.headers.get('x-ratelimit-remaining'),
                etag: response.headers.get('etag'),
                requestId: response.headers.get('x-request-id'),
              };
            } catch (error) {
              return { error: String(error) };
            }
          },
          { url: `${server.url}/v1/categories`, key, init },
        );
      } finally {
        await page.close();
      }
    }

    test('a page of a listed origin calls the API with a key and reads the rate-limit headers and ETag', async () => {
      const { key } = await server.createKey({ plan: 'free' });
      const created = await fetchFrom(allowed, key, { method: 'POST', body: '{"name":"From a browser"}' });
      assert.equal((created as { status: number }).status, 201, JSON.stringify(created));
      const listed = await fetchFrom(allowed, key);
      assert.equal((listed as { status: number }).status, 200, JSON.stringify(listed));
      assert.match((listed as { etag: string }).etag, /^"/);
      assert.match((listed as { requestId: string }).requestId, /\S/);
      // The preflights spent nothing: two requests, two counted. Should the minute turn between the two, the GET
      // alone counts in the new one (its preflight would make it 58 there too).
      const before = Number((created as { remaining: string }).remaining);
      const after = Number((listed as { remaining: string }).remaining);
      assert.equal(before, 60 - 1, 'the POST alone counted');
      assert.ok(after === before - 1 || after === 60 - 1, `remaining ${after} after ${before}`);
    });

    test('a page of another origin cannot read the answer', async () => {
      const { key } = await server.createKey({ plan: 'free' });
      // The same page server by another name: another origin, not on the list.
      const refused = await fetchFrom(`http://localhost:${pagePort}`, key);
      assert.match((refused as { error?: string }).error ?? '', /TypeError: Failed to fetch/);
    });
  });
});
