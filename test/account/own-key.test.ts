import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FakeClock } from '../../src/clock/index.js';
import type { KeyUsageHistory, RotatedKey } from '../../src/contract/index.js';
import { assertError, assertNothingSpent } from '../support/assertions.js';
import { BACKENDS } from '../support/backends.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** Half past ten: this hour's bucket starts at 10:00. */
const START = '2026-12-01T10:30:00.000Z';

for (const backend of BACKENDS) {
  describe(`the calling key's usage, rotation and revocation (${backend.name})`, () => {
    let server: TestServer;
    let clock: FakeClock;
    let admin: string;
    before(async () => {
      clock = new FakeClock(START);
      server = await startTestServer({}, { backend, clock });
      admin = (await server.createAdminToken()).token;
    });
    after(() => server.close());

    const as = (key: string, extra: Record<string, string> = {}) => ({
      headers: { authorization: `Bearer ${key}`, ...extra },
    });
    const post = (key: string, path: string, body?: unknown) =>
      server.call(path, {
        method: 'POST',
        ...as(key, body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const auditOf = async (id: string) =>
      ((await server.admin(admin, `/audit?target=${id}`)).body as { actor: string; action: string }[]).map(
        (event) => `${event.actor} ${event.action}`,
      );

    test('usage by hour (48) and by day (30), by outcome, counted at once and spending nothing', async () => {
      const { key } = await server.createKey({ plan: 'pro', name: 'charted' });
      for (let i = 0; i < 2; i += 1) assert.equal((await server.call('/v1/categories', as(key))).status, 200);
      assert.equal((await server.call('/v1/pets/0', as(key))).status, 400);
      clock.advance(3_600_000);
      assert.equal((await server.call('/v1/categories', as(key))).status, 200);

      const answer = await server.call('/v1/key/usage', as(key));
      assert.equal(answer.status, 200, answer.text);
      const remaining = answer.headers.get('x-ratelimit-remaining');
      const usage = answer.body as KeyUsageHistory;
      assert.equal(usage.hours.length, 48);
      assert.equal(usage.days.length, 30);
      assert.deepEqual(usage.hours.slice(-2), [
        { start: '2026-12-01T10:00:00.000Z', success: 2, clientErrors: 1, rateLimited: 0, serverErrors: 0 },
        { start: '2026-12-01T11:00:00.000Z', success: 1, clientErrors: 0, rateLimited: 0, serverErrors: 0 },
      ]);
      assert.equal(usage.hours[0]?.start, '2026-11-29T12:00:00.000Z');
      assert.deepEqual(usage.days.at(-1), {
        start: '2026-12-01T00:00:00.000Z',
        success: 3,
        clientErrors: 1,
        rateLimited: 0,
        serverErrors: 0,
      });
      assert.equal(usage.days[0]?.start, '2026-11-02T00:00:00.000Z');
      // Stored or not yet flushed, the counts are the same; the read before is one more answer.
      await server.deps.recorder.flush();
      const again = await server.call('/v1/key/usage', as(key));
      assert.deepEqual((again.body as KeyUsageHistory).days.at(-1), { ...usage.days.at(-1), success: 4 });
      assertNothingSpent(again, remaining, 'reading usage spends nothing');
    });

    test('rotate: the successor works at once, the old key until its grace ends, audited as the key', async () => {
      const expiresAt = new Date(clock.now() + 30 * 86_400_000).toISOString();
      const { id, key } = await server.createKey({
        plan: 'business',
        name: 'rotating',
        scopes: ['pets:read', 'categories:read'],
        expiresAt,
      });
      const rotated = await post(key, '/v1/key/rotate', { gracePeriodSeconds: 600 });
      assert.equal(rotated.status, 201, rotated.text);
      const successor = rotated.body as RotatedKey;
      server.issuedKeys.push(successor.key);
      assert.deepEqual(
        { ...successor, id: '', key: '' },
        {
          id: '',
          key: '',
          name: 'rotating',
          plan: 'business',
          scopes: ['categories:read', 'pets:read'],
          createdAt: new Date(clock.now()).toISOString(),
          expiresAt,
          replaces: id,
          replacedKeyExpiresAt: new Date(clock.now() + 600_000).toISOString(),
        },
      );
      assert.equal(
        (await server.call('/v1/categories', as(successor.key))).status,
        200,
        'the successor at once',
      );
      assert.equal((await server.call('/v1/categories', as(key))).status, 200, 'the old key in its grace');
      const twice = await post(key, '/v1/key/rotate');
      assertError(twice, 409, 'key_rotated');
      assert.match((twice.body as { message: string }).message, new RegExp(successor.id));
      assert.deepEqual(await auditOf(id), [`cli key.created`, `${id} key.rotated`]);

      clock.advance(600_001);
      await server.deps.authenticator.refresh();
      assertError(await server.call('/v1/categories', as(key)), 401, 'api_key_expired');
      assert.equal((await server.call('/v1/categories', as(successor.key))).status, 200);
    });

    test('a grace period beyond 30 days, or a body that is not a rotation, is 400 and rotates nothing', async () => {
      const { id, key } = await server.createKey({ plan: 'free' });
      for (const body of [{ gracePeriodSeconds: 2_592_001 }, { gracePeriodSeconds: -1 }, { id: 'key_x' }]) {
        assertError(await post(key, '/v1/key/rotate', body), 400, 'validation_failed');
      }
      assert.deepEqual(await auditOf(id), ['cli key.created']);
    });

    test('revoke: a rotated key takes its successors with it, which a thief holding it may have made', async () => {
      const { id, key } = await server.createKey({ plan: 'free', name: 'leaked' });
      const rotated = await post(key, '/v1/key/rotate', { gracePeriodSeconds: 86_400 });
      assert.equal(rotated.status, 201, rotated.text);
      const successor = rotated.body as RotatedKey;
      server.issuedKeys.push(successor.key);
      const shown = (await server.call('/v1/key', as(key))).body as { replacedBy: string | null };
      assert.equal(shown.replacedBy, successor.id, 'the key says what revoking it takes along');
      const revoked = await post(key, '/v1/key/revoke');
      assert.equal(revoked.status, 200, revoked.text);
      assert.deepEqual((revoked.body as { successorsRevoked: string[] }).successorsRevoked, [successor.id]);
      assertError(await server.call('/v1/key', as(successor.key)), 401, 'invalid_api_key');
      assert.deepEqual(await auditOf(successor.id), [`${id} key.revoked`]);
    });

    test('revoke: the key is refused from its next request, audited as the key; no other key is touched', async () => {
      const other = await server.createKey({ plan: 'free', name: 'bystander' });
      const { id, key } = await server.createKey({ plan: 'free', name: 'leaked' });
      assertError(await post(key, `/v1/key/revoke?id=${other.id}`), 400, 'validation_failed');
      // It documents no body: one that names another key is refused, not read as a revocation of this one.
      for (const body of [{ id: other.id }, {}, null]) {
        const refused = await post(key, '/v1/key/revoke', body);
        assertError(refused, 400, 'validation_failed');
        assert.match((refused.body as { message: string }).message, /takes no request body/);
      }
      assert.equal((await server.call('/v1/key', as(key))).status, 200, 'nothing was revoked');
      const revoked = await post(key, '/v1/key/revoke');
      assert.equal(revoked.status, 200, revoked.text);
      assert.deepEqual(revoked.body, {
        id,
        revokedAt: new Date(clock.now()).toISOString(),
        successorsRevoked: [],
      });
      assertError(await server.call('/v1/key', as(key)), 401, 'invalid_api_key');
      assertError(await post(key, '/v1/key/rotate'), 401, 'invalid_api_key');
      assert.equal((await server.call('/v1/key', as(other.key))).status, 200, 'the bystander still works');
      assert.deepEqual(await auditOf(id), ['cli key.created', `${id} key.revoked`]);
    });
  });
}
