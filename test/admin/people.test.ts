import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../support/assertions.js';
import { BACKENDS } from '../support/backends.js';
import { type OidcHarness, signedInSession, startOidcHarness } from '../support/oidc-provider.js';
import { request } from '../support/server.js';

interface TokenView {
  id: string;
  name: string;
  role: string;
  createdAt: string;
  revokedAt: string | null;
  createdBy: { kind: string; id: string; name: string | null } | null;
}

interface PersonView {
  id: string;
  email: string;
  sessions: number;
  tokens: {
    id: string;
    name: string;
    role: string;
    createdAt: string;
    through: { id: string; name: string } | null;
  }[];
}

/**
 * Offboarding: the admin tokens a person signed in with the identity provider made, which outlive their
 * sessions and their removal at the provider, are listed with them and revoked with their sessions on
 * request, on each backend.
 */
for (const backend of BACKENDS) {
  describe(`the tokens people make (${backend.name})`, () => {
    let h: OidcHarness;
    /** The break-glass owner token, as `petstore admin-tokens create` makes it. */
    let owner: { id: string; token: string };
    /** Olivia's console session, as a script would present it. */
    let olivia: Record<string, string>;
    let oliviaId = '';
    /** The tokens she made: one in her session, one with that one. */
    let ciToken = '';
    let nightlyToken = '';

    before(async () => {
      h = await startOidcHarness(
        { olivia: { email: 'olivia@example.com', name: 'Olivia Owner', groups: ['petstore-owners'] } },
        {},
        { backend },
      );
      owner = await h.server.createAdminToken('break glass');
      olivia = await signedInSession(h.browser, h.server.url, 'olivia', 'Olivia Owner (owner)');
      const current = await request(`${h.server.url}/admin/v1/sessions/current`, { headers: olivia });
      oliviaId = (current.body as { person: { id: string } }).person.id;
    });
    after(() => h?.close());

    /** A request of Olivia's console session (a change comes from the console's origin). */
    const asOlivia = (path: string, json?: unknown) =>
      request(`${h.server.url}/admin/v1${path}`, {
        method: json === undefined ? 'GET' : 'POST',
        headers: {
          ...olivia,
          origin: h.server.url,
          ...(json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
    const make = async (response: Awaited<ReturnType<typeof asOlivia>>) => {
      assert.equal(response.status, 201, response.text);
      const made = response.body as TokenView & { token: string };
      h.server.issuedKeys.push(made.token);
      return made;
    };
    const tokenOf = async (id: string) =>
      ((await h.server.admin(owner.token, '/admin-tokens')).body as TokenView[]).find(
        (token) => token.id === id,
      );
    const personOf = async () =>
      ((await h.server.admin(owner.token, '/people')).body as PersonView[]).find(
        (person) => person.id === oliviaId,
      );

    test('a person’s session makes a token, a token of theirs makes another: each says who made it, the person lists both', async () => {
      const ci = await make(await asOlivia('/admin-tokens', { name: 'olivia ci', role: 'owner' }));
      assert.deepEqual(ci.createdBy, { kind: 'person', id: oliviaId, name: 'Olivia Owner' });
      const nightly = await make(
        await h.server.admin(ci.token, '/admin-tokens', {
          method: 'POST',
          json: { name: 'nightly', role: 'viewer' },
        }),
      );
      assert.deepEqual(nightly.createdBy, { kind: 'token', id: ci.id, name: 'olivia ci' });
      ciToken = ci.token;
      nightlyToken = nightly.token;
      // The owner's own: made by the CLI, not Olivia's.
      assert.deepEqual((await tokenOf(owner.id))?.createdBy, { kind: 'cli', id: 'cli', name: null });
      assert.deepEqual((await tokenOf(nightly.id))?.createdBy, nightly.createdBy);

      const person = await personOf();
      assert.equal(person?.sessions, 1);
      assert.deepEqual(person?.tokens, [
        { id: ci.id, name: 'olivia ci', role: 'owner', createdAt: ci.createdAt, through: null },
        {
          id: nightly.id,
          name: 'nightly',
          role: 'viewer',
          createdAt: nightly.createdAt,
          through: { id: ci.id, name: 'olivia ci' },
        },
      ]);
    });

    test('ending the sessions alone leaves the tokens working; with revokeTokens they are revoked, each audited, and refused at once here', async () => {
      const before = await personOf();
      const [ci, nightly] = before?.tokens ?? [];
      assert.ok(ci && nightly);
      // A console session made with Olivia's token, which ends with it.
      const started = await h.server.admin(ciToken, '/sessions', { method: 'POST' });
      assert.equal(started.status, 201, started.text);
      const ciSession = {
        cookie: (started.headers.get('set-cookie') ?? '').split(';')[0] as string,
        'x-petstore-session': (started.body as { secret: string }).secret,
      };

      // Without the body, as before: the session ends, her tokens stay.
      const plain = await h.server.admin(owner.token, `/people/${oliviaId}/end-sessions`, { method: 'POST' });
      assert.equal(plain.status, 200, plain.text);
      assert.deepEqual(plain.body, { ended: 1, revokedTokens: [] });
      assertError(await asOlivia('/sessions/current'), 401);
      const stays = await h.server.admin(owner.token, `/people/${oliviaId}/end-sessions`, {
        method: 'POST',
        json: { revokeTokens: false },
      });
      assert.deepEqual(stays.body, { ended: 0, revokedTokens: [] });
      assert.equal((await h.server.admin(ciToken, '/keys')).status, 200, 'her token outlives her sessions');
      assert.equal((await h.server.admin(nightlyToken, '/keys')).status, 200);
      assert.equal((await personOf())?.tokens.length, 2);

      for (const body of [{ revokeTokens: 'yes' }, { revokeTokens: true, also: 1 }])
        assertError(
          await h.server.admin(owner.token, `/people/${oliviaId}/end-sessions`, {
            method: 'POST',
            json: body,
          }),
          400,
          'validation_failed',
        );

      const revoked = await h.server.admin(owner.token, `/people/${oliviaId}/end-sessions`, {
        method: 'POST',
        json: { revokeTokens: true },
      });
      assert.equal(revoked.status, 200, revoked.text);
      const { through: _ci, ...ciSummary } = ci;
      const { through: _nightly, ...nightlySummary } = nightly;
      assert.deepEqual(revoked.body, { ended: 0, revokedTokens: [ciSummary, nightlySummary] });
      // This instance refuses them at once, and the session made with one of them.
      assertError(await h.server.admin(ciToken, '/keys'), 401, 'invalid_api_key');
      assertError(await h.server.admin(nightlyToken, '/keys'), 401, 'invalid_api_key');
      assertError(await request(`${h.server.url}/admin/v1/sessions/current`, { headers: ciSession }), 401);
      assert.notEqual((await tokenOf(ci.id))?.revokedAt, null);
      assert.deepEqual((await personOf())?.tokens, []);
      assert.equal((await h.server.admin(owner.token, '/keys')).status, 200, 'the owner’s own goes on');

      const audit = (await h.server.admin(owner.token, '/audit?order=desc&limit=20')).body as {
        actor: string;
        action: string;
        target: string;
        details: Record<string, unknown>;
      }[];
      const revocations = audit.filter((event) => event.action === 'admin_token.revoked');
      assert.deepEqual(
        revocations.map((event) => [event.target, event.actor, event.details]).sort(),
        [
          [ci.id, owner.id, { person: oliviaId }],
          [nightly.id, owner.id, { person: oliviaId }],
        ].sort(),
      );
      const ending = audit.find((event) => event.action === 'person.sessions_ended');
      assert.deepEqual(ending?.details, { ended: 0, revokedTokens: [ci.id, nightly.id] });

      const again = await h.server.admin(owner.token, `/people/${oliviaId}/end-sessions`, {
        method: 'POST',
        json: { revokeTokens: true },
      });
      assert.deepEqual(again.body, { ended: 0, revokedTokens: [] });
      assertError(
        await h.server.admin(owner.token, '/people/per_AAAAAAAAAAAA/end-sessions', {
          method: 'POST',
          json: { revokeTokens: true },
        }),
        404,
        'not_found',
      );
    });
  });
}
