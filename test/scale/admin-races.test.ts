import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertError, eventually } from '../support/assertions.js';
import { createKey, startFleet } from '../support/fleet.js';
import { runCli } from '../support/process.js';
import { type JsonResponse, request } from '../support/server.js';

/** Admin changes made at the same moment on two instances of one PostgreSQL + Redis deployment. */
describe('admin changes at once on two instances', () => {
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
    for (const index of [0, 1]) {
      await eventually(`instance ${index} knows the admin token`, async () => {
        return (await admin(index, 'GET', '/keys')).status === 200;
      });
    }
  });
  after(() => fleet?.stop());

  test('three rotations of one key on each instance at once: one successor, five 409 key_rotated naming it', async () => {
    const { id } = await createKey(fleet.env, '--plan', 'pro', '--name', 'raced');
    const answers = await Promise.all(
      [0, 0, 0, 1, 1, 1].map((index) =>
        admin(index, 'POST', `/keys/${id}/rotate`, { gracePeriodSeconds: 600 }),
      ),
    );
    const won = answers.filter((answer) => answer.status === 201);
    assert.equal(won.length, 1, answers.map((answer) => `${answer.status}`).join(' '));
    const successor = (won[0]?.body as { id: string }).id;
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
});
