import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { FakeClock } from '../../src/clock/index.js';
import { ADMIN_API, SCOPES } from '../../src/contract/index.js';
import { createAdminTokenManager } from '../../src/identity/index.js';

const ADMIN_OPERATIONS = ADMIN_API.operations;

import { assertError, assertErrorShape } from '../support/assertions.js';
import { awaitRedisMinuteRoom, BACKENDS } from '../support/backends.js';
import { type JsonResponse, startTestServer, type TestServer } from '../support/server.js';

interface ApiKeyView {
  id: string;
  name: string;
  plan: string;
  scopes: string[];
  state: string;
  expiresAt: string | null;
  revokedAt: string | null;
  replacedBy: string | null;
  key?: string;
}
interface AuditEventView {
  id: number;
  actor: string;
  actorName: string | null;
  action: string;
  target: string;
  details: Record<string, unknown>;
}

const START = '2026-12-01T10:00:00.000Z';
/** The admin limit of these servers: low enough to reach in a test. */
const ADMIN_PER_MINUTE = 40;

/** Polls until `check` holds for the answer of `send`, for at most 5 s (the bound for key changes). */
async function within5s(send: () => Promise<JsonResponse>, check: (response: JsonResponse) => boolean) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const response = await send();
    if (check(response)) return response;
    if (Date.now() > deadline) {
      assert.fail(`not within 5 s: the last answer was ${response.status} ${response.text}`);
    }
    await sleep(100);
  }
}

for (const backend of BACKENDS) {
  describe(`admin API (${backend.name})`, () => {
    let server: TestServer;
    let clock: FakeClock;

    before(async () => {
      clock = new FakeClock(START);
      server = await startTestServer(
        {},
        {
          backend,
          clock,
          configFile: {
            admin: { perMinute: ADMIN_PER_MINUTE, perDay: 10_000 },
            anonymous: { perMinute: 10_000, perDay: 100_000 },
            ban: { after: 3, durationSeconds: 900 },
          },
        },
      );
    });
    after(() => server.close());

    /** A new admin token: each test has its own, so their requests do not share the admin limit. */
    const token = async () => (await server.createAdminToken()).token;
    /** Creates a key through the admin API and remembers the key for the leak checks. */
    async function createKey(admin: string, body: Record<string, unknown>): Promise<ApiKeyView> {
      const created = await server.admin(admin, '/keys', { method: 'POST', json: body });
      assert.equal(created.status, 201, created.text);
      const view = created.body as ApiKeyView;
      server.issuedKeys.push(view.key as string);
      return view;
    }
    const asKey = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });
    /** Waits until the server accepts `key`: it picks a new or changed key up within 5 s. */
    const accepted = (key: string) =>
      within5s(
        () => server.call('/v1/categories', asKey(key)),
        (response) => response.status === 200,
      );
    /** Starts a trial that must stay in one minute window of the limiter's clock: Redis's, or the fake one. */
    const minuteRoom = async () => {
      if (backend.limiter === 'redis') await awaitRedisMinuteRoom(15_000);
    };

    test('every operation refuses a missing, invalid or revoked admin token with 401 and changes nothing', async () => {
      const admin = await token();
      const target = await createKey(admin, { plan: 'free', name: 'target' });
      const revoked = await server.createAdminToken('revoked');
      await createAdminTokenManager({ adminTokens: server.deps.storage.adminTokens, clock }).revoke(
        revoked.id,
      );
      await server.deps.adminAuthenticator.refresh();
      const credentials: [string, Record<string, string>, string, string][] = [
        ['none', {}, 'missing_api_key', 'Bearer realm="petstore-admin"'],
        [
          'an API key',
          { authorization: `Bearer ${server.key}` },
          'invalid_api_key',
          'Bearer realm="petstore-admin", error="invalid_token"',
        ],
        [
          'a revoked token',
          { authorization: `Bearer ${revoked.token}` },
          'invalid_api_key',
          'Bearer realm="petstore-admin", error="invalid_token"',
        ],
        [
          'a made-up token',
          { authorization: `Bearer ps_admin_${'x'.repeat(40)}` },
          'invalid_api_key',
          'Bearer realm="petstore-admin", error="invalid_token"',
        ],
      ];
      const before = await server.admin(admin, '/keys');
      for (const operation of ADMIN_OPERATIONS) {
        const path = `/admin/v1${operation.path.replace('{id}', target.id)}`;
        // Sign-in may carry its token in the body, so a body of another operation is a 400 there: it is sent none.
        const withBody = operation.method !== 'GET' && operation.operationId !== 'startSession';
        for (const [what, headers, code, challenge] of credentials) {
          const response = await server.call(path, {
            method: operation.method,
            headers: {
              authorization: '',
              ...headers,
              ...(withBody ? { 'content-type': 'application/json' } : {}),
            },
            ...(withBody ? { body: JSON.stringify({ plan: 'pro', name: 'x' }) } : {}),
          });
          assertError(response, 401, code);
          assert.equal(
            response.headers.get('www-authenticate'),
            challenge,
            `${operation.operationId}, ${what}`,
          );
          assert.ok(response.headers.get('x-request-id'), 'every answer has a request id');
        }
      }
      const unchanged = await server.admin(admin, '/keys');
      assert.deepEqual(unchanged.body, before.body, 'no refused request changed a key');
    });

    test('an admin token is not an API key: /v1 refuses it', async () => {
      const admin = await token();
      assertError(await server.call('/v1/categories', asKey(admin)), 401, 'invalid_api_key');
    });

    test('a key created through the admin API is shown once and works within 5 s', async () => {
      const admin = await token();
      const created = await createKey(admin, { plan: 'free', name: 'signup flow' });
      assert.match(created.key as string, /^ps_live_/);
      assert.equal(created.state, 'active');
      assert.deepEqual(created.scopes, [...SCOPES], 'every scope by default');
      // Without telling the server: its own poll of the keys picks the new one up.
      await accepted(created.key as string);
      const shown = await server.admin(admin, `/keys/${created.id}`);
      assert.equal(shown.status, 200);
      const { key: _key, ...view } = created;
      assert.deepEqual({ ...(shown.body as object), lastUsedAt: null }, { ...view, lastUsedAt: null });
      assert.ok(!shown.text.includes(created.key as string));
      const listed = await server.admin(admin, '/keys');
      assert.ok((listed.body as ApiKeyView[]).some((key) => key.id === created.id));
      assert.ok((listed.body as ApiKeyView[]).every((key) => key.key === undefined && !('digest' in key)));
    });

    test('bad bodies and queries are refused with 400 (413, 415) and change nothing', async () => {
      const admin = await token();
      const existing = await createKey(admin, { plan: 'pro', name: 'existing' });
      const countBefore = ((await server.admin(admin, '/keys')).body as unknown[]).length;
      const past = new Date(clock.now() - 1000).toISOString();
      const badCreates: unknown[] = [
        {},
        { plan: 'gold' },
        { plan: 'free', extra: 1 },
        { plan: 'free', perMinute: 5, perDay: 10 },
        { plan: 'enterprise', perMinute: 5 },
        { plan: 'enterprise', perMinute: 50, perDay: 10 },
        { plan: 'free', expiresAt: past },
        { plan: 'free', expiresAt: 'tomorrow' },
        { plan: 'free', scopes: ['pets:fly'] },
        { plan: 'free', scopes: [] },
        { plan: 'free', scopes: ['pets:read', 'pets:read'] },
        { plan: 'free', name: 'two\nlines' },
        { plan: 'free', name: '' },
        [{ plan: 'free' }],
        'free',
      ];
      for (const body of badCreates) {
        const response = await server.admin(admin, '/keys', { method: 'POST', json: body });
        assertError(response, 400, 'validation_failed');
        assert.ok(!/must be equal to|must NOT/.test(response.text), `own words: ${response.text}`);
      }
      const json = { 'content-type': 'application/json' };
      assertError(
        await server.admin(admin, '/keys', { method: 'POST', headers: json, body: '{"plan":' }),
        400,
        'malformed_json',
      );
      assertError(
        await server.admin(admin, '/keys', {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ plan: 'free', name: 'x'.repeat(20_000) }),
        }),
        413,
        'payload_too_large',
      );
      assertError(
        await server.admin(admin, '/keys', {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: '{"plan":"free"}',
        }),
        415,
      );
      const patch = (body: unknown) =>
        server.admin(admin, `/keys/${existing.id}`, { method: 'PATCH', json: body });
      for (const body of [{}, { plan: 'gold' }, { scopes: [] }, { id: 'key_x' }]) {
        assertError(await patch(body), 400, 'validation_failed');
      }
      for (const body of [
        { gracePeriodSeconds: -1 },
        { gracePeriodSeconds: 30 * 86_400 + 1 },
        { grace: 1 },
      ]) {
        assertError(
          await server.admin(admin, `/keys/${existing.id}/rotate`, { method: 'POST', json: body }),
          400,
          'validation_failed',
        );
      }
      for (const query of [
        '?limit=0',
        '?limit=1001',
        '?after=-1',
        '?after=1.0',
        '?bogus=1',
        '?limit=1&limit=2',
      ]) {
        assertError(await server.admin(admin, `/audit${query}`), 400, 'validation_failed');
      }
      const badId = await server.admin(admin, '/keys/not-a-key-id');
      assertError(badId, 400, 'validation_failed');
      assert.equal((badId.body as { message: string }).message, 'id must look like key_3fK9x2LmQ8aZ');
      const badDate = await server.admin(admin, '/keys', {
        method: 'POST',
        json: { plan: 'free', expiresAt: 'soon' },
      });
      assert.match(
        (badDate.body as { message: string }).message,
        /^expiresAt must look like 2027-01-31T00:00:00Z$/,
      );
      const after = (await server.admin(admin, '/keys')).body as ApiKeyView[];
      assert.equal(after.length, countBefore, 'no key was created');
      assert.deepEqual(
        after.find((key) => key.id === existing.id),
        (({ key: _key, ...view }) => view)(existing),
        'the key was not changed',
      );
    });

    test('a name with an invisible or bidirectional format character (Unicode Cf) is refused, created or changed', async () => {
      const admin = await token();
      const existing = await createKey(admin, { plan: 'free', name: 'payments' });
      for (const character of [
        '\u200b',
        '\u200e',
        '\u200f',
        '\u061c',
        '\u2060',
        '\ufeff',
        '\u00ad',
        '\u{e0041}',
      ]) {
        const name = `pay${character}ments`;
        for (const response of [
          await server.admin(admin, '/keys', { method: 'POST', json: { plan: 'free', name } }),
          await server.admin(admin, `/keys/${existing.id}`, { method: 'PATCH', json: { name } }),
        ]) {
          assertError(response, 400, 'validation_failed');
          assert.match((response.body as { message: string }).message, /control or invisible characters/);
        }
      }
      assert.equal(((await server.admin(admin, `/keys/${existing.id}`)).body as ApiKeyView).name, 'payments');
    });

    test('an optional body may be empty whatever type it declares: rotate, revoke, unban, verify and remove', async () => {
      const admin = await token();
      const json = { 'content-type': 'application/json' };
      const created = await createKey(admin, { plan: 'free', name: 'empty bodies' });
      const send = (method: string, path: string) =>
        server.admin(admin, path, { method, headers: json, body: '' });
      const rotated = await send('POST', `/keys/${created.id}/rotate`);
      assert.equal(rotated.status, 201, rotated.text);
      const successor = rotated.body as ApiKeyView;
      server.issuedKeys.push(successor.key as string);
      assert.equal((await send('POST', `/keys/${successor.id}/unban`)).status, 200);
      assert.equal((await send('POST', `/keys/${successor.id}/revoke`)).status, 200);
      const added = await server.admin(admin, '/domains', {
        method: 'POST',
        json: { name: 'empty.example.test' },
      });
      assert.equal(added.status, 201, added.text);
      assert.equal((await send('POST', '/domains/empty.example.test/verify')).status, 200);
      assert.equal((await send('DELETE', '/domains/empty.example.test')).status, 200);
      assertError(await send('POST', '/keys'), 400, 'validation_failed');
    });

    test('a body sent to an operation that documents none is refused with 400, and changes nothing', async () => {
      const admin = await token();
      const created = await createKey(admin, { plan: 'free', name: 'no bodies' });
      const other = await createKey(admin, { plan: 'free', name: 'bystander' });
      for (const path of [`/keys/${created.id}/revoke`, `/keys/${created.id}/unban`]) {
        for (const json of [{ id: other.id }, {}]) {
          const refused = await server.admin(admin, path, { method: 'POST', json });
          assertError(refused, 400, 'validation_failed');
          assert.match((refused.body as { message: string }).message, /takes no request body/);
        }
      }
      const shown = await server.admin(admin, `/keys/${created.id}`);
      assert.equal((shown.body as ApiKeyView).revokedAt, null, 'not revoked');
      const events = await server.admin(admin, `/audit?target=${created.id}`);
      assert.deepEqual(
        (events.body as { action: string }[]).map((event) => event.action),
        ['key.created'],
      );
    });

    test('a date outside the years 0001 to 9999 in a query is refused with 400, never written back as another', async () => {
      const admin = await token();
      for (const query of [
        '/audit?to=0000-01-01T00:00:00Z',
        '/audit?from=0001-01-01T00:00:00%2B01:00',
        '/usage?to=0000-06-01T00:00:00Z',
      ]) {
        const refused = await server.admin(admin, query);
        assertError(refused, 400, 'validation_failed');
        assert.doesNotMatch(refused.text, /-0000/);
      }
    });

    test('an expiry on a day that does not exist is refused with 400 naming expiresAt, never moved', async () => {
      const admin = await token();
      const existing = await createKey(admin, { plan: 'free', name: 'dated' });
      for (const expiresAt of ['2027-02-30T00:00:00Z', '2027-04-31T12:00:00Z', '2027-01-31T24:00:00Z']) {
        for (const response of [
          await server.admin(admin, '/keys', { method: 'POST', json: { plan: 'free', expiresAt } }),
          await server.admin(admin, `/keys/${existing.id}`, { method: 'PATCH', json: { expiresAt } }),
        ]) {
          assertError(response, 400, 'validation_failed');
          assert.match(
            (response.body as { message: string }).message,
            /^expiresAt .* must be a date and time that exists/,
          );
        }
      }
      assert.equal(((await server.admin(admin, `/keys/${existing.id}`)).body as ApiKeyView).expiresAt, null);
    });

    test('unknown ids answer 404 on every operation that names a key', async () => {
      const admin = await token();
      const unknown = 'key_000000000000';
      for (const operation of ADMIN_OPERATIONS.filter((operation) =>
        operation.path.startsWith('/keys/{id}'),
      )) {
        const response = await server.admin(admin, operation.path.replace('{id}', unknown), {
          method: operation.method,
          ...(operation.method === 'PATCH' ? { json: { name: 'renamed' } } : {}),
        });
        assertError(response, 404, 'not_found');
        assert.match((response.body as { message: string }).message, /key_000000000000/);
      }
      assertError(await server.admin(admin, '/nowhere'), 404, 'not_found');
    });

    test('PATCH changes only what it names; a key without a scope gets 403 within 5 s', async () => {
      const admin = await token();
      const created = await createKey(admin, { plan: 'free', name: 'narrowed' });
      const key = created.key as string;
      await accepted(key);
      const changed = await server.admin(admin, `/keys/${created.id}`, {
        method: 'PATCH',
        json: { name: 'pets only', scopes: ['pets:read'] },
      });
      assert.equal(changed.status, 200, changed.text);
      const view = changed.body as ApiKeyView;
      assert.equal(view.name, 'pets only');
      assert.deepEqual(view.scopes, ['pets:read']);
      assert.equal(view.plan, 'free', 'the plan stays');
      const refused = await within5s(
        () => server.call('/v1/categories', asKey(key)),
        (response) => response.status === 403,
      );
      assertError(refused, 403, 'insufficient_scope');
      assert.equal(
        refused.headers.get('www-authenticate'),
        'Bearer realm="petstore", error="insufficient_scope", scope="categories:read"',
      );
      assert.equal((await server.call('/v1/pets', asKey(key))).status, 200);
      assertError(await server.post('/v1/pets', { name: 'Rex' }, { authorization: `Bearer ${key}` }), 403);
    });

    test('a revoked key is refused within 5 s and can no longer be changed (409)', async () => {
      const admin = await token();
      const created = await createKey(admin, { plan: 'free', name: 'to revoke' });
      await accepted(created.key as string);
      const revoked = await server.admin(admin, `/keys/${created.id}/revoke`, { method: 'POST' });
      assert.equal(revoked.status, 200);
      assert.equal((revoked.body as ApiKeyView).state, 'revoked');
      const again = await server.admin(admin, `/keys/${created.id}/revoke`, { method: 'POST' });
      assert.equal(again.status, 200, 'revoking twice answers the key');
      assert.equal((again.body as ApiKeyView).revokedAt, (revoked.body as ApiKeyView).revokedAt);
      const refused = await within5s(
        () => server.call('/v1/categories', asKey(created.key as string)),
        (response) => response.status === 401,
      );
      assertError(refused, 401, 'invalid_api_key');
      assertError(
        await server.admin(admin, `/keys/${created.id}`, { method: 'PATCH', json: { name: 'back' } }),
        409,
        'key_revoked',
      );
      assertError(
        await server.admin(admin, `/keys/${created.id}/rotate`, { method: 'POST' }),
        409,
        'key_revoked',
      );
    });

    test('revoking a leaked key revokes every key rotated from it, each audited; ending a grace alone is an expiry', async () => {
      const admin = await token();
      const leaked = await createKey(admin, { plan: 'free', name: 'leaked' });
      // The thief rotates the leaked key with a long grace, then its successor again: K1 -> K2 -> K3.
      const rotateItself = async (key: string) => {
        const rotated = await server.call('/v1/key/rotate', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ gracePeriodSeconds: 2_592_000 }),
        });
        assert.equal(rotated.status, 201, rotated.text);
        server.issuedKeys.push((rotated.body as { key: string }).key);
        return rotated.body as { id: string; key: string };
      };
      const second = await rotateItself(leaked.key as string);
      const third = await rotateItself(second.key);
      const revoked = await server.admin(admin, `/keys/${leaked.id}/revoke`, { method: 'POST' });
      assert.equal(revoked.status, 200, revoked.text);
      const body = revoked.body as ApiKeyView & { successorsRevoked: string[] };
      assert.equal(body.state, 'revoked');
      assert.deepEqual(body.successorsRevoked, [second.id, third.id]);
      await server.deps.authenticator.refresh();
      for (const key of [leaked.key as string, second.key, third.key]) {
        assertError(await server.call('/v1/categories', asKey(key)), 401, 'invalid_api_key');
      }
      for (const [id, details] of [
        [second.id, { successorOf: leaked.id }],
        [third.id, { successorOf: leaked.id }],
      ] as const) {
        const events = (await server.admin(admin, `/audit?target=${id}`)).body as {
          action: string;
          details: unknown;
        }[];
        assert.deepEqual(events.at(-1), { ...events.at(-1), action: 'key.revoked', details });
      }
      // Revoking the first key again revokes nothing more and answers the same chain.
      const again = await server.admin(admin, `/keys/${leaked.id}/revoke`, { method: 'POST' });
      assert.deepEqual((again.body as { successorsRevoked: string[] }).successorsRevoked, [
        second.id,
        third.id,
      ]);

      // The operator who only wants a rotated key's grace over expires it: its successor keeps working.
      const kept = await createKey(admin, { plan: 'free', name: 'kept' });
      const successor = await rotateItself(kept.key as string);
      const expired = await server.admin(admin, `/keys/${kept.id}`, {
        method: 'PATCH',
        json: { expiresAt: new Date(clock.now()).toISOString() },
      });
      assert.equal(expired.status, 200, expired.text);
      await server.deps.authenticator.refresh();
      assertError(await server.call('/v1/categories', asKey(kept.key as string)), 401, 'api_key_expired');
      assert.equal((await server.call('/v1/categories', asKey(successor.key))).status, 200);
    });

    test('a key past its expiry gets 401 api_key_expired', async () => {
      const admin = await token();
      const expiresAt = new Date(clock.now() + 60_000).toISOString();
      const created = await createKey(admin, { plan: 'free', name: 'short-lived', expiresAt });
      assert.equal(created.expiresAt, expiresAt);
      await accepted(created.key as string);
      clock.advance(60_000);
      const expired = await server.call('/v1/categories', asKey(created.key as string));
      assertError(expired, 401, 'api_key_expired');
      assert.equal(
        expired.headers.get('www-authenticate'),
        'Bearer realm="petstore", error="invalid_token", error_description="The API key expired"',
      );
      assert.equal(
        (expired.body as { message: string }).message,
        `The API key expired at ${expiresAt}: ask for a new key`,
        'no successor to point at: it was not rotated',
      );
      assert.equal(((await server.admin(admin, `/keys/${created.id}`)).body as ApiKeyView).state, 'expired');
      // An expiry can be lifted while the key is not revoked.
      const renewed = await server.admin(admin, `/keys/${created.id}`, {
        method: 'PATCH',
        json: { expiresAt: null },
      });
      assert.equal((renewed.body as ApiKeyView).state, 'active');
      await accepted(created.key as string);
    });

    test("a key is expired now by an expiry at or before now, which ends a rotation's grace too", async () => {
      const admin = await token();
      const created = await createKey(admin, { plan: 'free', name: 'ended' });
      await accepted(created.key as string);
      const past = new Date(clock.now() - 86_400_000).toISOString();
      const ended = await server.admin(admin, `/keys/${created.id}`, {
        method: 'PATCH',
        json: { expiresAt: past },
      });
      assert.equal(ended.status, 200, ended.text);
      assert.equal(
        (ended.body as ApiKeyView).expiresAt,
        new Date(clock.now()).toISOString(),
        'ended now, not back then',
      );
      assert.equal((ended.body as ApiKeyView).state, 'expired');
      const refused = await within5s(
        () => server.call('/v1/categories', asKey(created.key as string)),
        (response) => response.status === 401,
      );
      assertError(refused, 401, 'api_key_expired');

      const rotating = await createKey(admin, { plan: 'free', name: 'graceful' });
      const rotated = await server.admin(admin, `/keys/${rotating.id}/rotate`, {
        method: 'POST',
        json: { gracePeriodSeconds: 3600 },
      });
      server.issuedKeys.push((rotated.body as ApiKeyView).key as string);
      const now = new Date(clock.now()).toISOString();
      assert.equal(
        (await server.admin(admin, `/keys/${rotating.id}`, { method: 'PATCH', json: { expiresAt: now } }))
          .status,
        200,
      );
      const old = await within5s(
        () => server.call('/v1/categories', asKey(rotating.key as string)),
        (response) => response.status === 401,
      );
      assert.equal(
        (old.body as { message: string }).message,
        `The API key expired at ${now}, at the end of its rotation's grace period: use the key that replaced it`,
      );
    });

    test('rotation: the old key works until the grace deadline, then stops; grace 0 stops it at once', async () => {
      const admin = await token();
      const created = await createKey(admin, { plan: 'pro', name: 'rotated', scopes: ['pets:read'] });
      const old = created.key as string;
      const rotated = await server.admin(admin, `/keys/${created.id}/rotate`, {
        method: 'POST',
        json: { gracePeriodSeconds: 3600 },
      });
      assert.equal(rotated.status, 201, rotated.text);
      const successor = rotated.body as ApiKeyView;
      server.issuedKeys.push(successor.key as string);
      assert.deepEqual(
        [successor.plan, successor.scopes],
        ['pro', ['pets:read']],
        'plan and scopes carry over',
      );
      assert.notEqual(successor.id, created.id);
      const previous = (await server.admin(admin, `/keys/${created.id}`)).body as ApiKeyView;
      assert.equal(previous.replacedBy, successor.id);
      assert.equal(previous.expiresAt, new Date(clock.now() + 3_600_000).toISOString());
      await within5s(
        () => server.call('/v1/pets', asKey(successor.key as string)),
        (response) => response.status === 200,
      );
      assert.equal((await server.call('/v1/pets', asKey(old))).status, 200, 'the old key works in the grace');
      clock.advance(3_600_000 - 1);
      assert.equal((await server.call('/v1/pets', asKey(old))).status, 200, 'up to the deadline');
      clock.advance(1);
      assertError(await server.call('/v1/pets', asKey(old)), 401, 'api_key_expired');
      assert.equal((await server.call('/v1/pets', asKey(successor.key as string))).status, 200);

      const again = await server.admin(admin, `/keys/${successor.id}/rotate`, { method: 'POST' });
      assert.equal(again.status, 201, 'the body may be left out: grace 0');
      server.issuedKeys.push((again.body as ApiKeyView).key as string);
      const stopped = await within5s(
        () => server.call('/v1/pets', asKey(successor.key as string)),
        (response) => response.status === 401,
      );
      assertError(stopped, 401, 'api_key_expired');
    });

    test('a key is rotated once: again, or five times at once, is 409 naming its successor; expired keys not at all', async () => {
      const admin = await token();
      const expiresAt = new Date(clock.now() + 10 * 86_400_000).toISOString();
      const created = await createKey(admin, { plan: 'pro', name: 'once', expiresAt });
      const rotate = (id: string) =>
        server.admin(admin, `/keys/${id}/rotate`, { method: 'POST', json: { gracePeriodSeconds: 3600 } });
      const first = await rotate(created.id);
      assert.equal(first.status, 201, first.text);
      const successor = first.body as ApiKeyView;
      server.issuedKeys.push(successor.key as string);
      assert.equal(
        successor.expiresAt,
        expiresAt,
        'the successor keeps the original expiry, not the grace end',
      );

      const again = await rotate(created.id);
      assertError(again, 409, 'key_rotated');
      assert.match(
        (again.body as { message: string }).message,
        new RegExp(`its successor is ${successor.id}`),
      );

      const rivals = await Promise.all([1, 2, 3, 4, 5].map(() => rotate(successor.id)));
      const won = rivals.filter((answer) => answer.status === 201);
      assert.equal(won.length, 1, rivals.map((answer) => answer.status).join(' '));
      const winner = won[0]?.body as ApiKeyView;
      server.issuedKeys.push(winner.key as string);
      assert.equal(winner.expiresAt, expiresAt);
      for (const lost of rivals.filter((answer) => answer.status !== 201)) {
        assertError(lost, 409, 'key_rotated');
        assert.match((lost.body as { message: string }).message, new RegExp(winner.id));
      }
      const keys = (await server.admin(admin, '/keys')).body as ApiKeyView[];
      assert.equal(keys.filter((key) => key.name === 'once').length, 3, 'the first key and two successors');

      // The plan and limits belong to the budget the successor now holds; the name is the key's own.
      const plan = await server.admin(admin, `/keys/${created.id}`, {
        method: 'PATCH',
        json: { plan: 'business' },
      });
      assertError(plan, 409, 'key_rotated');
      assert.match((plan.body as { message: string }).message, new RegExp(`change ${successor.id} instead`));
      const named = await server.admin(admin, `/keys/${created.id}`, {
        method: 'PATCH',
        json: { name: 'old' },
      });
      assert.equal(named.status, 200, named.text);

      const brief = await createKey(admin, {
        plan: 'free',
        name: 'brief',
        expiresAt: new Date(clock.now() + 60_000).toISOString(),
      });
      clock.advance(60_000);
      const expired = await rotate(brief.id);
      assertError(expired, 409, 'key_expired');
      assert.match((expired.body as { message: string }).message, /an expired key cannot be rotated/);
    });

    test('a rotated key shares its budget and ban: exactly L requests across old and new in one window', async () => {
      const admin = await token();
      const limit = 5;
      await minuteRoom();
      const created = await createKey(admin, {
        plan: 'enterprise',
        name: 'budget',
        perMinute: limit,
        perDay: 1000,
      });
      const old = created.key as string;
      await accepted(old);
      assert.equal((await server.call('/v1/categories', asKey(old))).status, 200);
      const rotated = await server.admin(admin, `/keys/${created.id}/rotate`, {
        method: 'POST',
        json: { gracePeriodSeconds: 3600 },
      });
      const successor = rotated.body as ApiKeyView;
      server.issuedKeys.push(successor.key as string);
      // A key the server does not know yet answers 401, which spends nothing of the budget.
      await within5s(
        () => server.call('/v1/categories', asKey(successor.key as string)),
        (response) => response.status !== 401,
      );
      const statuses: number[] = [];
      for (const key of [old, successor.key as string, old, successor.key as string]) {
        statuses.push((await server.call('/v1/categories', asKey(key))).status);
      }
      // Two by the old key before the rotation, one by the successor once it was known, then these.
      assert.deepEqual(statuses, [200, 200, 429, 429], 'five in all, across both keys');
      // Two more refusals (three in the window) ban the budget: both keys, and a rotation does not lift it.
      await server.call('/v1/categories', asKey(old));
      assertError(await server.call('/v1/categories', asKey(successor.key as string)), 429, 'api_key_banned');
      assertError(await server.call('/v1/categories', asKey(old)), 429, 'api_key_banned');
      const third = await server.admin(admin, `/keys/${successor.id}/rotate`, {
        method: 'POST',
        json: { gracePeriodSeconds: 60 },
      });
      const newest = (third.body as ApiKeyView).key as string;
      server.issuedKeys.push(newest);
      const banned = await within5s(
        () => server.call('/v1/categories', asKey(newest)),
        (response) => response.status !== 401,
      );
      assertError(banned, 429, 'api_key_banned');
      const shown = (await server.admin(admin, `/keys/${created.id}`)).body as ApiKeyView;
      // Redis times bans by its own clock, which the test's fake clock is ahead of: there, the ban the
      // admin API shows has already ended.
      if (backend.limiter === 'memory') assert.equal(shown.state, 'banned');
      const unbanned = await server.admin(admin, `/keys/${(third.body as ApiKeyView).id}/unban`, {
        method: 'POST',
      });
      assert.equal(unbanned.status, 200);
      // The ban lifts everywhere within 5 s; the window keeps its counts, so the answer is a plain 429.
      const limited = await within5s(
        () => server.call('/v1/categories', asKey(old)),
        (response) => (response.body as { code?: string }).code !== 'api_key_banned',
      );
      assertError(limited, 429, 'rate_limit_exceeded');
    });

    test('each admin token has its own rate limit', async () => {
      const admin = await token();
      const other = await token();
      await minuteRoom();
      for (let sent = 0; sent < ADMIN_PER_MINUTE; sent += 1) {
        const response = await server.admin(admin, '/audit?limit=1');
        assert.equal(response.status, 200, `request ${sent + 1}`);
      }
      const limited = await server.admin(admin, '/audit?limit=1');
      assertError(limited, 429, 'rate_limit_exceeded');
      assert.equal(limited.headers.get('x-ratelimit-limit'), String(ADMIN_PER_MINUTE));
      assert.ok(limited.headers.get('retry-after'));
      assert.equal((await server.admin(other, '/audit?limit=1')).status, 200, 'another token is not limited');
    });

    test('the audit record holds every change, who made it, and never key material', async () => {
      const admin = await server.createAdminToken('auditor');
      const created = await createKey(admin.token, { plan: 'free', name: 'audited' });
      await server.admin(admin.token, `/keys/${created.id}`, { method: 'PATCH', json: { plan: 'pro' } });
      const rotated = await server.admin(admin.token, `/keys/${created.id}/rotate`, { method: 'POST' });
      server.issuedKeys.push((rotated.body as ApiKeyView).key as string);
      await server.admin(admin.token, `/keys/${created.id}/unban`, { method: 'POST' });
      await server.admin(admin.token, `/keys/${created.id}/revoke`, { method: 'POST' });
      const listed = await server.admin(admin.token, `/audit?target=${created.id}`);
      assert.equal(listed.status, 200);
      const events = listed.body as AuditEventView[];
      assert.deepEqual(
        events.map((event) => [event.action, event.actor]),
        [
          ['key.created', admin.id],
          ['key.updated', admin.id],
          ['key.rotated', admin.id],
          ['key.unbanned', admin.id],
          ['key.revoked', admin.id],
        ],
      );
      assert.deepEqual(events[1]?.details, { plan: 'pro' }, 'what changed, as it is now');
      assert.equal(events[2]?.details.successor, (rotated.body as ApiKeyView).id);
      const ids = events.map((event) => event.id);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
        'oldest first',
      );
      const page = (await server.admin(admin.token, `/audit?target=${created.id}&after=${ids[1]}&limit=2`))
        .body as AuditEventView[];
      assert.deepEqual(
        page.map((event) => event.id),
        ids.slice(2, 4),
      );
      const tokenEvents = (await server.admin(admin.token, `/audit?target=${admin.id}`))
        .body as AuditEventView[];
      assert.deepEqual(
        tokenEvents.map((event) => event.action),
        ['admin_token.created'],
      );
      for (const secret of server.issuedKeys) assert.ok(!listed.text.includes(secret));
    });

    test('the audit names each actor: an admin token by its name (revoked too), the CLI by none', async () => {
      const named = await server.createAdminToken('Release pipeline');
      const made = await createKey(named.token, { plan: 'free', name: 'named actor' });
      await server.admin(named.token, `/keys/${made.id}`, { method: 'PATCH', json: { name: 'renamed' } });
      await createAdminTokenManager({ adminTokens: server.deps.storage.adminTokens, clock }).revoke(named.id);
      const fromCli = await server.createKey({ plan: 'free', name: 'by the cli' });
      const reader = await token();
      const events = async (target: string) =>
        ((await server.admin(reader, `/audit?target=${target}`)).body as AuditEventView[]).map((event) => [
          event.action,
          event.actor,
          event.actorName,
        ]);
      assert.deepEqual(await events(made.id), [
        ['key.created', named.id, 'Release pipeline'],
        ['key.updated', named.id, 'Release pipeline'],
      ]);
      assert.deepEqual(await events(named.id), [
        ['admin_token.created', 'cli', null],
        ['admin_token.revoked', 'cli', null],
      ]);
      assert.deepEqual(await events(fromCli.id), [['key.created', 'cli', null]]);
    });

    test('no answer, log line or stored row holds a key or a token after it was shown', async () => {
      const admin = await token();
      const created = await createKey(admin, { plan: 'pro', name: 'leak check' });
      const rotated = await server.admin(admin, `/keys/${created.id}/rotate`, {
        method: 'POST',
        json: { gracePeriodSeconds: 60 },
      });
      server.issuedKeys.push((rotated.body as ApiKeyView).key as string);
      await accepted(created.key as string);
      await server.deps.recorder.flush();
      const answers = [
        await server.admin(admin, '/keys'),
        await server.admin(admin, `/keys/${created.id}`),
        await server.admin(admin, '/audit?limit=1000'),
        await server.call('/v1/key', asKey(created.key as string)),
      ];
      for (const answer of answers) assert.equal(answer.status, 200);
      const stored = await server.storedText();
      const logs = server.logs.join('\n');
      assert.ok(server.issuedKeys.length >= 3);
      for (const secret of server.issuedKeys) {
        for (const answer of answers) assert.ok(!answer.text.includes(secret), 'no answer holds a key');
        assert.ok(!logs.includes(secret), 'no log line holds a key');
        assert.ok(!stored.includes(secret), 'no stored row holds a key');
      }
      for (const answer of answers.slice(0, 3)) assertNoDigest(answer);
    });
  });
}

/** The admin API shows prefixes, never digests. */
function assertNoDigest(response: JsonResponse): void {
  assert.ok(!/"digest"/.test(response.text));
  assert.ok(!/[0-9a-f]{64}/.test(response.text), 'no SHA-256 digest');
  if (response.status >= 400) assertErrorShape(response);
}
