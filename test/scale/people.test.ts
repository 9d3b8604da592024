import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { assertError } from '../support/assertions.js';
import { launchBrowser } from '../support/browser.js';
import { startFleet } from '../support/fleet.js';
import {
  oidcEnv,
  signedInSession,
  startIdentityProvider,
  type TestIdentityProvider,
} from '../support/oidc-provider.js';
import { runCli } from '../support/process.js';
import { request } from '../support/server.js';

/** A person signed in with the identity provider, on two instances of one PostgreSQL + Redis deployment. */
describe('people on two instances', () => {
  let idp: TestIdentityProvider;
  let fleet: Awaited<ReturnType<typeof startFleet>>;
  let browser: Browser;
  let owner: string;

  before(async () => {
    idp = await startIdentityProvider();
    idp.accounts.set('sam', { email: 'sam@example.com', name: 'Sam Support', groups: ['petstore-support'] });
    idp.accounts.set('otto', { email: 'otto@example.com', name: 'Otto Owner', groups: ['petstore-owners'] });
    fleet = await startFleet([0, 0], oidcEnv(idp));
    idp.register(fleet.servers.map((server) => new URL(server.url).origin));
    const made = await runCli(['admin-tokens', 'create', '--name', 'owner', '--json'], fleet.env);
    assert.equal(made.code, 0, made.stderr);
    owner = (JSON.parse(made.stdout) as { token: string }).token;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await fleet?.stop();
    await idp?.close();
  });

  test('a session begun on one is honoured on the other with its role; ending the person’s sessions on one ends them on both', async () => {
    const [first, second] = fleet.servers.map((server) => server.url) as [string, string];
    const headers = await signedInSession(browser, first, 'sam', 'Sam Support (support)');

    const call = (base: string, method: string, path: string, json?: unknown) =>
      request(`${base}/admin/v1${path}`, {
        method,
        headers: {
          ...headers,
          origin: base,
          ...(json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
    let personId = '';
    for (const base of [first, second]) {
      const current = await call(base, 'GET', '/sessions/current');
      assert.equal(current.status, 200, current.text);
      const session = current.body as { role: string; person: { id: string; email: string } };
      assert.equal(session.role, 'support');
      assert.equal(session.person.email, 'sam@example.com');
      personId = session.person.id;
      assert.equal((await call(base, 'GET', '/keys')).status, 200);
      assertError(await call(base, 'POST', '/keys', { plan: 'free' }), 403, 'insufficient_role');
      // Support may lift a ban: the key is missing, not the role.
      assertError(await call(base, 'POST', '/keys/key_AAAAAAAAAAAA/unban'), 404, 'not_found');
    }

    // The owner ends Sam's sessions through the second instance: both refuse the session at its next request.
    const ended = await request(`${second}/admin/v1/people/${personId}/end-sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner}` },
    });
    assert.equal(ended.status, 200, ended.text);
    assert.deepEqual(ended.body, { ended: 1, revokedTokens: [] });
    for (const base of [first, second])
      assertError(await call(base, 'GET', '/sessions/current'), 401, 'invalid_api_key');

    const people = await request(`${first}/admin/v1/people`, {
      headers: { authorization: `Bearer ${owner}` },
    });
    const sam = (people.body as { id: string; role: string; sessions: number }[]).find(
      (each) => each.id === personId,
    );
    assert.deepEqual({ role: sam?.role, sessions: sam?.sessions }, { role: 'support', sessions: 0 });
  });

  test('a token a person made on one is listed on the other; revoked with their sessions through one, both refuse it', async () => {
    const [first, second] = fleet.servers.map((server) => server.url) as [string, string];
    const headers = await signedInSession(browser, first, 'otto', 'Otto Owner (owner)');
    const made = await request(`${first}/admin/v1/admin-tokens`, {
      method: 'POST',
      headers: { ...headers, origin: first, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'otto script', role: 'viewer' }),
    });
    assert.equal(made.status, 201, made.text);
    const { id, token } = made.body as { id: string; token: string };
    const ownerCall = (base: string, path: string, json?: unknown) =>
      request(`${base}/admin/v1${path}`, {
        method: json === undefined ? 'GET' : 'POST',
        headers: {
          authorization: `Bearer ${owner}`,
          ...(json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
    const people = (await ownerCall(second, '/people')).body as { id: string; tokens: { id: string }[] }[];
    const otto = people.find((person) => person.tokens.some((each) => each.id === id));
    assert.ok(otto, 'the second instance lists the token with Otto');
    for (const base of [first, second])
      assert.equal(
        (await request(`${base}/admin/v1/keys`, { headers: { authorization: `Bearer ${token}` } })).status,
        200,
      );

    const ended = await ownerCall(second, `/people/${otto.id}/end-sessions`, { revokeTokens: true });
    assert.equal(ended.status, 200, ended.text);
    assert.deepEqual(
      (ended.body as { ended: number; revokedTokens: { id: string }[] }).revokedTokens.map((each) => each.id),
      [id],
    );
    const refusedBy = async (base: string) =>
      (await request(`${base}/admin/v1/keys`, { headers: { authorization: `Bearer ${token}` } })).status ===
      401;
    assert.ok(await refusedBy(second), 'the instance that revoked it refuses it at once');
    // Asked every 250 ms, well inside the admin API's limits, for 5 seconds and a margin for the asking.
    const deadline = Date.now() + 5_500;
    while (!(await refusedBy(first))) {
      assert.ok(Date.now() < deadline, 'the other instance refuses it within 5 seconds');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  });
});
