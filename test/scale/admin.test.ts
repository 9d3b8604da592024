import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, eventually } from '../support/assertions.js';
import { createKey, startFleet } from '../support/fleet.js';
import { runCli } from '../support/process.js';
import { type JsonResponse, request } from '../support/server.js';

/** Admin changes on two instances of one PostgreSQL + Redis deployment, at the same moment or one after the other. */
describe('admin changes on two instances', () => {
  let fleet: Awaited<ReturnType<typeof startFleet>>;
  let token: string;
  /** A request to the admin API of instance `index`. */
  const admin = (index: number, method: string, path: string, json?: unknown): Promise<JsonResponse> =>
    request(`${fleet.servers[index]?.url}/admin/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });

  before(async () => {
    fleet = await startFleet([0, 0]);
    const created = await runCli(['admin-tokens', 'create', '--name', 'races', '--json'], fleet.env);
    assert.equal(created.code, 0, created.stderr);
    token = (JSON.parse(created.stdout) as { token: string }).token;
  });
  after(() => fleet?.stop());

  test('a token made by the CLI, and a key made through one instance, work on both at once', async () => {
    for (const index of [0, 1]) assert.equal((await admin(index, 'GET', '/keys')).status, 200);
    const created = await admin(0, 'POST', '/keys', { plan: 'free', name: 'at once' });
    assert.equal(created.status, 201, created.text);
    const { key } = created.body as { key: string };
    for (const server of [fleet.servers[1], fleet.servers[0]]) {
      const used = await request(`${server?.url}/v1/categories`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(used.status, 200, used.text);
    }
  });

  test('a console session made on one instance is accepted by the other, and ends on both', async () => {
    const started = await admin(0, 'POST', '/sessions');
    assert.equal(started.status, 201, started.text);
    const cookie = (started.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const secret = (started.body as { secret: string }).secret;
    const withCookie = (index: number, method = 'GET') =>
      request(`${fleet.servers[index]?.url}/admin/v1/sessions/current`, {
        method,
        headers: { cookie, 'x-petstore-session': secret, origin: fleet.servers[index]?.url as string },
      });
    for (const index of [0, 1]) assert.equal((await withCookie(index)).status, 200);
    assert.equal((await withCookie(1, 'DELETE')).status, 200);
    for (const index of [0, 1]) assertError(await withCookie(index), 401, 'invalid_api_key');

    // A session dies with its token: revoked through the CLI, refused by both within the bound of revocation.
    const made = await runCli(['admin-tokens', 'create', '--name', 'doomed', '--json'], fleet.env);
    const doomed = JSON.parse(made.stdout) as { id: string; token: string };
    const signIn = await request(`${fleet.servers[1]?.url}/admin/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${doomed.token}` },
    });
    assert.equal(signIn.status, 201, signIn.text);
    const doomedCookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const doomedSecret = (signIn.body as { secret: string }).secret;
    const current = (index: number) =>
      request(`${fleet.servers[index]?.url}/admin/v1/sessions/current`, {
        headers: { cookie: doomedCookie, 'x-petstore-session': doomedSecret },
      });
    assert.equal((await current(0)).status, 200);
    assert.equal((await runCli(['admin-tokens', 'revoke', doomed.id], fleet.env)).code, 0);
    for (const index of [0, 1]) {
      await eventually(
        `instance ${index} refuses the session`,
        async () => (await current(index)).status === 401,
      );
    }
  });

  test('a support token made through one instance has its role on the other, in a session too; revoked there, both refuse it', async () => {
    const made = await admin(0, 'POST', '/admin-tokens', { name: 'desk', role: 'support' });
    assert.equal(made.status, 201, made.text);
    const desk = made.body as { id: string; token: string };
    // The other instance knows a token made a moment ago at once (it rereads the tokens on a miss).
    const signIn = await request(`${fleet.servers[1]?.url}/admin/v1/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${desk.token}` },
    });
    assert.equal(signIn.status, 201, signIn.text);
    assert.equal((signIn.body as { role: string }).role, 'support');
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const secret = (signIn.body as { secret: string }).secret;
    const asSession = (index: number, method: string, path: string) =>
      request(`${fleet.servers[index]?.url}/admin/v1${path}`, {
        method,
        headers: {
          cookie,
          'x-petstore-session': secret,
          origin: fleet.servers[index]?.url as string,
          ...(method === 'POST' && path === '/keys' ? { 'content-type': 'application/json' } : {}),
        },
        ...(method === 'POST' && path === '/keys' ? { body: JSON.stringify({ plan: 'free' }) } : {}),
      });
    for (const index of [0, 1]) {
      assert.equal((await asSession(index, 'GET', '/keys')).status, 200);
      assertError(await asSession(index, 'POST', '/keys'), 403, 'insufficient_role');
      assertError(await asSession(index, 'POST', '/keys/key_AAAAAAAAAAAA/unban'), 404, 'not_found');
    }
    const refusals = (await admin(1, 'GET', `/audit?actor=${desk.id}`)).body as { action: string }[];
    assert.deepEqual(
      refusals.map((event) => event.action),
      ['session.started', 'access.refused', 'access.refused'],
    );

    assert.equal((await admin(1, 'POST', `/admin-tokens/${desk.id}/revoke`)).status, 200);
    for (const index of [0, 1]) {
      await eventually(
        `instance ${index} ends the session`,
        async () => (await asSession(index, 'GET', '/sessions/current')).status === 401,
      );
    }
  });

  test('three rotations of one key on each instance at once: one successor, five 409 key_rotated naming it', async () => {
    const { id } = await createKey(fleet.env, '--plan', 'pro', '--name', 'raced');
    const answers = await Promise.all(
      [0, 0, 0, 1, 1, 1].map((index) =>
        admin(index, 'POST', `/keys/${id}/rotate`, { gracePeriodSeconds: 600 }),
      ),
    );
    const won = answers.filter((answer) => answer.status === 201);
    assert.equal(won.length, 1, answers.map((answer) => `${answer.status}`).join(' '));
    const successor = ((won[0] as JsonResponse).body as { id: string }).id;
    for (const lost of answers.filter((answer) => answer.status !== 201)) {
      assertError(lost, 409, 'key_rotated');
      assert.match((lost.body as { message: string }).message, new RegExp(`its successor is ${successor}`));
    }
    const keys = (await admin(1, 'GET', '/keys')).body as { id: string; name: string; replacedBy: string }[];
    assert.deepEqual(
      keys.filter((key) => key.name === 'raced').map((key) => key.id),
      [id, successor],
      'no successor but the one',
    );
    assert.equal(keys.find((key) => key.id === id)?.replacedBy, successor);
  });

  test('two primaries added at once on two instances: one is added, the other is 409 naming it', async () => {
    for (let round = 0; round < 5; round += 1) {
      const names = [`one-${round}.race.test`, `two-${round}.race.test`];
      const answers = await Promise.all(
        names.map((name, index) => admin(index, 'POST', '/domains', { name, primary: true })),
      );
      const added = answers.findIndex((answer) => answer.status === 201);
      assert.notEqual(added, -1, answers.map((answer) => answer.text).join(' '));
      const refused = answers[1 - added] as JsonResponse;
      assertError(refused, 409, 'domain_conflict');
      assert.equal(
        (refused.body as { message: string }).message,
        `${names[added]} is the primary domain: remove it first, or add ${names[1 - added]} without primary`,
      );
      const listed = (await admin(0, 'GET', '/domains')).body as { name: string; primary: boolean }[];
      assert.deepEqual(
        listed.filter((domain) => domain.primary).map((domain) => domain.name),
        [names[added]],
      );
      assert.equal((await admin(1, 'DELETE', `/domains/${names[added]}`)).status, 200);
    }
  });
});
