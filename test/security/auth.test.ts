import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FakeClock } from '../../src/clock/index.js';
import { generateKey } from '../../src/keys/index.js';
import { assertError, assertRateLimitHeaders } from '../support/assertions.js';
import { BACKENDS } from '../support/backends.js';
import { breakChecksum, type ProtectedRoute, protectedRoutes, securitySuite } from '../support/security.js';
import { request, startTestServer, type TestServer } from '../support/server.js';

for (const backend of BACKENDS) {
  describe(`bearer authentication (${backend.name})`, () => {
    let server: TestServer;
    let routes: ProtectedRoute[];
    before(async () => {
      // The suite sends more requests without a valid key than the default anonymous limit admits a minute.
      server = await startTestServer(
        {},
        {
          backend,
          configFile: { anonymous: { perMinute: 10_000, perDay: 100_000 } },
          // Before the deprecated endpoint's sunset, whatever day the suite runs.
          clock: new FakeClock('2026-12-01T10:00:00.000Z'),
        },
      );
      routes = await protectedRoutes(server);
    });
    after(() => server.close());

    securitySuite(
      () => server,
      () => routes,
    );

    test('every status the API answers carries the rate-limit headers', async () => {
      const json = { 'content-type': 'application/json' };
      const list = await server.call('/v1/categories');
      const answers = {
        200: list,
        201: await server.post('/v1/categories', { name: 'Headers' }),
        304: await server.call('/v1/categories', { headers: { 'if-none-match': '*' } }),
        400: await server.post('/v1/categories', { name: '' }),
        401: await request(`${server.url}/v1/categories`),
        404: await server.call('/v1/nowhere'),
        405: await server.call('/v1/categories', { method: 'DELETE' }),
        413: await server.call('/v1/categories', { method: 'POST', headers: json, body: 'x'.repeat(17_000) }),
        415: await server.call('/v1/categories', {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: '{}',
        }),
      };
      // One request a day: the second is refused whatever minute it falls in (a minute that ends between
      // the two would let it through).
      const { key } = await server.createKey({ plan: 'enterprise', limits: { perMinute: 1, perDay: 1 } });
      const withKey = { authorization: `Bearer ${key}` };
      await server.call('/v1/categories', { headers: withKey });
      const limited = await server.call('/v1/categories', { headers: withKey });
      for (const [status, response] of Object.entries({ ...answers, 429: limited })) {
        assert.equal(response.status, Number(status));
        assertRateLimitHeaders(response);
      }
      assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');
    });

    test('the scheme word is case-insensitive', async () => {
      for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
        const response = await server.call('/v1/categories', {
          headers: { authorization: `${scheme} ${server.key}` },
        });
        assert.equal(response.status, 200, scheme);
      }
    });

    test('a key in the query string is ignored', async () => {
      for (const query of [`api_key=${server.key}`, `access_token=${server.key}`, `key=${server.key}`]) {
        const response = await request(`${server.url}/v1/categories?${query}`);
        assertError(response, 401, 'missing_api_key');
      }
    });

    test('unknown /v1 paths are authenticated first, so they reveal nothing to strangers', async () => {
      assertError(await request(`${server.url}/v1/secret-admin`), 401, 'missing_api_key');
      assertError(await server.call('/v1/secret-admin'), 404, 'not_found');
    });

    test('the reference and health endpoints need no key', async () => {
      for (const path of ['/openapi.json', '/healthz', '/readyz']) {
        const response = await request(`${server.url}${path}`);
        assert.equal(response.status, 200, path);
      }
    });

    test('a staging server accepts staging keys and refuses production keys, saying which is which', async () => {
      const staging = await startTestServer({ PETSTORE_ENV: 'staging' }, { backend });
      try {
        assert.match(staging.key, /^ps_test_/);
        assert.equal((await staging.call('/v1/categories')).status, 200);
        const live = await request(`${staging.url}/v1/categories`, {
          headers: { authorization: `Bearer ${server.key}` },
        });
        assertError(live, 401, 'invalid_api_key');
        assert.equal(
          (live.body as { message: string }).message,
          'The API key is a production key (ps_live_) and this is the staging API: use a staging key (ps_test_)',
        );
        const test = await server.call('/v1/categories', {
          headers: { authorization: `Bearer ${staging.key}` },
        });
        assertError(test, 401, 'invalid_api_key');
        assert.equal(
          (test.body as { message: string }).message,
          'The API key is a staging key (ps_test_) and this is the production API: use a production key (ps_live_)',
        );
      } finally {
        await staging.close();
      }
    });

    test('a key that cannot be one is told what to check; a well-formed unknown or revoked one is not told which', async () => {
      const key = server.key;
      /** The 401's message for an Authorization header, which never holds the key it was sent. */
      const refusal = async (authorization: string) => {
        const response = await request(`${server.url}/v1/categories`, { headers: { authorization } });
        assertError(response, 401, 'invalid_api_key');
        const { message } = response.body as { message: string };
        assert.ok(!message.includes(key.slice(8, 20)), `${authorization}: the key is not echoed`);
        return message;
      };
      const told: [string, RegExp][] = [
        [`Bearer ${key.slice(0, -1)}`, /has 39 characters, and an API key has 40; copy it again/],
        [`Bearer ${key}x`, /has 41 characters, and an API key has 40/],
        [`Bearer "${key}"`, /in quotes: send it without them/],
        [`Bearer '${key}'`, /in quotes: send it without them/],
        [`Bearer Bearer ${key}`, /Bearer twice/],
        [`Bearer ${key.slice(0, 20)} ${key.slice(20)}`, /a space inside it/],
        [`Bearer ${breakChecksum(key)}`, /fails its checksum .*copy it again/],
        [`Bearer ${key.slice(0, 20)}-${key.slice(21)}`, /a character no API key has/],
        [`Bearer ps_admin_${'A'.repeat(32)}`, /an admin token/],
        ['Bearer not-a-key', /starts with ps_live_ .* or ps_test_/],
      ];
      for (const [authorization, expected] of told) assert.match(await refusal(authorization), expected);

      // A key of the right shape and checksum is told nothing more: neither that it is unknown nor revoked.
      const unknown = await refusal(`Bearer ${generateKey('production')}`);
      const revoked = await server.createKey({ plan: 'free', name: 'revoked for the message' });
      await server.revokeKey(revoked.id);
      assert.equal(await refusal(`Bearer ${revoked.key}`), unknown);
      assert.doesNotMatch(unknown, /characters|checksum|quotes|copy/);
    });

    test('the document declares bearerAuth and 401 on every operation', async () => {
      const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
        paths: Record<
          string,
          Record<string, { security: { bearerAuth?: string[] }[]; responses: Record<string, unknown> }>
        >;
      };
      for (const item of Object.values(document.paths)) {
        for (const operation of Object.values(item)) {
          assert.equal(operation.security.length, 1);
          assert.ok(Array.isArray(operation.security[0]?.bearerAuth));
          assert.ok(operation.responses['401']);
        }
      }
    });

    test('no issued key reaches the log or the storage, used or refused', async () => {
      // Keys of its own, sent to every route while valid and after revocation, whatever ran before.
      const used = await server.createKey({ plan: 'business', name: 'leak check' });
      const revoked = await server.createKey({ plan: 'business', name: 'leak check, revoked' });
      await server.revokeKey(revoked.id);
      for (const { key } of [used, revoked]) {
        for (const route of routes) {
          await server.call(route.path, {
            method: route.method,
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            ...(route.body === undefined ? {} : { body: JSON.stringify(route.body) }),
          });
        }
      }
      assert.ok(server.issuedKeys.length >= 2);
      assert.ok(server.logs.length > 0);
      const logs = server.logs.join('\n');
      const stored = await server.storedText();
      assert.ok(
        stored.includes(server.issuedKeys[0]?.slice(0, 12) ?? '-'),
        'the search does see the stored keys',
      );
      for (const key of server.issuedKeys) {
        assert.ok(!logs.includes(key) && !stored.includes(key) && !stored.includes(key.slice(12)));
      }
    });
  });
}
