import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FakeClock } from '../../src/clock/index.js';
import { ADMIN_API } from '../../src/contract/index.js';
import { createAdminTokenManager } from '../../src/identity/index.js';
import { assertError } from '../support/assertions.js';
import { BACKENDS } from '../support/backends.js';
import { type JsonResponse, request, startTestServer, type TestServer } from '../support/server.js';

interface SessionView {
  tokenId: string;
  tokenName: string;
  createdAt: string;
  expiresAt: string;
  idleExpiresAt: string;
}

/** A console session's two secrets, as its requests send them. */
interface Credentials {
  cookie: string;
  secret: string;
}

const START = '2026-12-01T10:00:00.000Z';
const MINUTE = 60_000;

/** The `name=value` of a `Set-Cookie`, and its attributes, lower-cased. */
function cookieOf(response: JsonResponse): {
  pair: string;
  name: string;
  value: string;
  attributes: string[];
} {
  const header = response.headers.get('set-cookie');
  assert.ok(header !== null, `a Set-Cookie on ${response.status} ${response.text}`);
  const [pair = '', ...attributes] = header.split(';').map((part) => part.trim());
  const [name = '', value = ''] = pair.split('=');
  return { pair, name, value, attributes: attributes.map((attribute) => attribute.toLowerCase()) };
}

for (const backend of BACKENDS) {
  describe(`console sessions (${backend.name})`, () => {
    let server: TestServer;
    let clock: FakeClock;

    before(async () => {
      clock = new FakeClock(START);
      server = await startTestServer({}, { backend, clock });
    });
    after(() => server.close());

    /** What a session's requests carry: its cookie (`name=value`) and its second secret, as the console sends. */
    const credentialsOf = (started: JsonResponse): Credentials => ({
      cookie: cookieOf(started).pair,
      secret: (started.body as { secret: string }).secret,
    });
    /** Signs in with a new token; answers the token, the session's credentials and the answer. */
    async function signIn(headers: Record<string, string> = {}) {
      const token = await server.createAdminToken('console');
      const started = await request(`${server.url}/admin/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.token}`, ...headers },
      });
      assert.equal(started.status, 201, started.text);
      return { token, cookie: credentialsOf(started), response: started };
    }
    /**
     * A request to the admin API with a session's cookie and its secret in `X-Petstore-Session`, from a page of
     * this origin unless `headers` say.
     */
    const withCookie = (
      { cookie, secret }: Credentials,
      path: string,
      init: { method?: string; json?: unknown } = {},
      headers = {},
    ) =>
      request(`${server.url}/admin/v1${path}`, {
        method: init.method ?? 'GET',
        headers: {
          cookie,
          'x-petstore-session': secret,
          ...(init.method === undefined ? {} : { origin: server.url }),
          ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
      });

    test('an admin token becomes an HttpOnly, SameSite=Strict cookie that acts as the token, stored hashed', async () => {
      const { token, cookie, response } = await signIn();
      const set = cookieOf(response);
      assert.equal(set.name, 'petstore_session', 'plain HTTP cannot carry the __Host- prefix');
      assert.match(set.value, /^pss_[A-Za-z0-9_-]{43}$/);
      for (const attribute of ['httponly', 'samesite=strict', 'path=/', 'max-age=43200'])
        assert.ok(set.attributes.includes(attribute), `${attribute} in ${set.attributes}`);
      assert.ok(!set.attributes.includes('secure'), 'no Secure over plain HTTP');
      const { secret, ...session } = response.body as SessionView & { secret: string };
      assert.deepEqual(session, {
        tokenId: token.id,
        tokenName: 'console',
        person: null,
        role: 'owner',
        // An owner may call every operation of the admin document.
        operations: ADMIN_API.operations.map((operation) => operation.operationId),
        createdAt: START,
        expiresAt: '2026-12-01T22:00:00.000Z',
        idleExpiresAt: '2026-12-01T10:30:00.000Z',
      });
      assert.match(secret, /^pssh_[A-Za-z0-9_-]{43}$/);

      const keys = await withCookie(cookie, '/keys');
      assert.equal(keys.status, 200, keys.text);
      assert.deepEqual((await withCookie(cookie, '/sessions/current')).body, session);
      const stored = await server.storedText();
      assert.ok(
        !stored.includes(set.value) && !stored.includes(secret),
        'only a digest of the two is stored',
      );
    });

    test('through a TLS front on this machine the cookie is Secure, with the __Host- prefix', async () => {
      const { cookie, response } = await signIn({
        'x-forwarded-proto': 'https',
        'x-forwarded-for': '203.0.113.9',
      });
      const set = cookieOf(response);
      assert.equal(set.name, '__Host-petstore_session');
      assert.ok(set.attributes.includes('secure'));
      const https = { 'x-forwarded-proto': 'https' };
      assert.equal((await withCookie(cookie, '/keys', {}, https)).status, 200);
      // Under the plain name over HTTPS it is no session cookie at all, and the secure one is unknown over HTTP.
      assertError(
        await withCookie({ ...cookie, cookie: cookie.cookie.replace('__Host-', '') }, '/keys', {}, https),
        401,
        'missing_api_key',
      );
      assertError(await withCookie(cookie, '/keys'), 401, 'missing_api_key');
    });

    test('the token may come in the body instead; a wrong one is 401, none at all 401, and nothing is set', async () => {
      const token = await server.createAdminToken('form');
      const send = (body?: string) =>
        request(`${server.url}/admin/v1/sessions`, {
          method: 'POST',
          ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body }),
        });
      const started = await send(JSON.stringify({ token: token.token }));
      assert.equal(started.status, 201, started.text);
      assert.equal((started.body as SessionView).tokenId, token.id);
      assert.equal((await withCookie(credentialsOf(started), '/keys')).status, 200);
      const wrong = await send(JSON.stringify({ token: 'ps_admin_nope' }));
      assertError(wrong, 401, 'invalid_api_key');
      assertError(await send(), 401, 'missing_api_key');
      assertError(await send(JSON.stringify({ token: token.token, extra: 1 })), 400, 'validation_failed');
      for (const refused of [wrong]) assert.equal(refused.headers.get('set-cookie'), null);
    });

    test('plain HTTP through a proxy is refused: 403 https_required, no cookie', async () => {
      const token = await server.createAdminToken();
      const refused = await request(`${server.url}/admin/v1/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.token}`, 'x-forwarded-for': '203.0.113.9' },
      });
      assertError(refused, 403, 'https_required');
      assert.equal(refused.headers.get('set-cookie'), null);
    });

    test('a change with the cookie from another origin is 403 cross_origin_request and changes nothing', async () => {
      const { token, cookie } = await signIn();
      const before = ((await withCookie(cookie, '/keys')).body as unknown[]).length;
      const create = { method: 'POST', json: { plan: 'free', name: 'csrf' } };
      for (const headers of [
        { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
        { 'sec-fetch-site': 'same-site', origin: server.url.replace('127.0.0.1', 'localhost') },
        { origin: 'https://evil.example' },
        { origin: 'null' },
      ]) {
        assertError(await withCookie(cookie, '/keys', create, headers), 403, 'cross_origin_request');
      }
      // Neither header: no browser sends a change without one, so it is refused too.
      const bare = await request(`${server.url}/admin/v1/keys`, {
        method: 'POST',
        headers: {
          cookie: cookie.cookie,
          'x-petstore-session': cookie.secret,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ plan: 'free' }),
      });
      assertError(bare, 403, 'cross_origin_request');
      assert.equal(((await withCookie(cookie, '/keys')).body as unknown[]).length, before);

      const made = await withCookie(cookie, '/keys', create, { 'sec-fetch-site': 'same-origin' });
      assert.equal(made.status, 201, made.text);
      server.issuedKeys.push((made.body as { key: string }).key);
      const audit = await withCookie(cookie, `/audit?target=${(made.body as { id: string }).id}`);
      assert.deepEqual(
        (audit.body as { actor: string; action: string }[]).map((event) => [event.actor, event.action]),
        [[token.id, 'key.created']],
        "the session's change is audited as its token's",
      );
    });

    test('signing out ends the session at once and clears the cookie; a session cannot start a session', async () => {
      const { token, cookie } = await signIn();
      const again = await request(`${server.url}/admin/v1/sessions`, {
        method: 'POST',
        headers: { cookie: cookie.cookie, 'x-petstore-session': cookie.secret, origin: server.url },
      });
      assertError(again, 401, 'missing_api_key');
      const ended = await withCookie(cookie, '/sessions/current', { method: 'DELETE' });
      assert.equal(ended.status, 200, ended.text);
      assert.deepEqual(ended.body, { ended: true });
      const cleared = cookieOf(ended);
      assert.equal(cleared.value, '');
      assert.ok(cleared.attributes.some((attribute) => attribute.startsWith('expires=thu, 01 jan 1970')));
      const refused = await withCookie(cookie, '/keys');
      assertError(refused, 401, 'invalid_api_key');
      assert.equal(
        (refused.body as { message: string }).message,
        'The console session has ended: sign in again',
      );
      const bearer = await server.admin(token.token, '/sessions/current');
      assertError(bearer, 404, 'not_found');
      const events = await server.admin(token.token, `/audit?actor=${token.id}`);
      assert.deepEqual(
        (events.body as { action: string }[]).map((event) => event.action),
        ['session.started', 'session.ended'],
      );
    });

    test('a session ends 30 minutes after its last request, and 12 hours after it started', async () => {
      clock.set(START);
      const idle = await signIn();
      const busy = await signIn();
      clock.advance(29 * MINUTE);
      assert.equal((await withCookie(idle.cookie, '/keys')).status, 200, 'alive 29 minutes in');
      clock.advance(29 * MINUTE);
      assert.equal((await withCookie(idle.cookie, '/keys')).status, 200, 'its request moved the idle end');
      clock.advance(30 * MINUTE);
      assertError(await withCookie(idle.cookie, '/keys'), 401, 'invalid_api_key');

      clock.set(START);
      for (let minutes = 20; minutes < 12 * 60; minutes += 20) {
        clock.set(Date.parse(START) + minutes * MINUTE);
        const seen = await withCookie(busy.cookie, '/sessions/current');
        assert.equal(seen.status, 200, `${minutes} minutes in: ${seen.text}`);
      }
      clock.set(Date.parse(START) + 12 * 60 * MINUTE);
      assertError(await withCookie(busy.cookie, '/keys'), 401, 'invalid_api_key');
      clock.set(START);
    });

    test('the cookie alone is refused, whatever else the request says: a local program that received it gets nothing', async () => {
      const { cookie } = await signIn();
      const before = ((await withCookie(cookie, '/keys')).body as unknown[]).length;
      // Cookies are not scoped by port: any server on this host that the browser visits receives this one, and
      // can then claim to be the console's own page.
      const sameOrigin = { cookie: cookie.cookie, 'sec-fetch-site': 'same-origin', origin: server.url };
      for (const [method, path, body] of [
        ['GET', '/keys', undefined],
        ['GET', '/sessions/current', undefined],
        ['POST', '/keys', JSON.stringify({ plan: 'enterprise', perMinute: 100, perDay: 1000 })],
        ['DELETE', '/sessions/current', undefined],
      ] as const) {
        const refused = await request(`${server.url}/admin/v1${path}`, {
          method,
          headers: body === undefined ? sameOrigin : { ...sameOrigin, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body }),
        });
        assertError(refused, 401, 'invalid_api_key');
        assert.match((refused.body as { message: string }).message, /X-Petstore-Session/);
      }
      assert.equal(((await withCookie(cookie, '/keys')).body as unknown[]).length, before, 'nothing made');
      assert.equal((await withCookie(cookie, '/sessions/current')).status, 200, 'nor ended');
      // A browser holding that cookie can still sign in anew (a new tab has no secret).
      const token = await server.createAdminToken('new tab');
      const again = await request(`${server.url}/admin/v1/sessions`, {
        method: 'POST',
        headers: { cookie: cookie.cookie, origin: server.url, 'content-type': 'application/json' },
        body: JSON.stringify({ token: token.token }),
      });
      assert.equal(again.status, 201, again.text);
    });

    test('background refreshes do not count as activity: an unattended page ends its session when idle', async () => {
      clock.set(START);
      const { cookie } = await signIn();
      const background = { 'x-petstore-background': 'true' };
      for (let minutes = 5; minutes < 30; minutes += 5) {
        clock.set(Date.parse(START) + minutes * MINUTE);
        const polled = await withCookie(cookie, '/domains', {}, background);
        assert.equal(polled.status, 200, `${minutes} minutes in: ${polled.text}`);
      }
      const seen = await withCookie(cookie, '/sessions/current', {}, background);
      assert.equal((seen.body as SessionView).idleExpiresAt, '2026-12-01T10:30:00.000Z', 'not moved');
      clock.set(Date.parse(START) + 30 * MINUTE);
      assertError(await withCookie(cookie, '/domains', {}, background), 401, 'invalid_api_key');
      clock.set(START);
    });

    test('a session dies with its admin token', async () => {
      const { token, cookie } = await signIn();
      assert.equal((await withCookie(cookie, '/keys')).status, 200);
      await createAdminTokenManager({ adminTokens: server.deps.storage.adminTokens, clock }).revoke(token.id);
      await server.deps.adminAuthenticator.refresh();
      assertError(await withCookie(cookie, '/keys'), 401, 'invalid_api_key');
    });

    test('a forged or malformed cookie is 401, never a 5xx', async () => {
      const { cookie } = await signIn();
      for (const value of ['pss_', `pss_${'A'.repeat(43)}`, 'x'.repeat(5000), '%E0%A4%A', '"quoted"']) {
        const forged = { cookie: `petstore_session=${value}`, secret: cookie.secret };
        assertError(await withCookie(forged, '/keys'), 401, 'invalid_api_key');
      }
      for (const secret of [
        '',
        'pssh_',
        `pssh_${'A'.repeat(43)}`,
        cookie.secret.slice(0, -1),
        'x'.repeat(5000),
      ]) {
        assertError(await withCookie({ ...cookie, secret }, '/keys'), 401, 'invalid_api_key');
      }
      assert.equal((await withCookie(cookie, '/keys')).status, 200, 'the session itself is fine');
    });
  });
}
