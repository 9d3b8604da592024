import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../support/assertions.js';
import { BACKENDS } from '../support/backends.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

interface DeliveryBody {
  id: number;
  state: string;
  attempts: number;
  nextAttemptAt: string | null;
}

for (const backend of BACKENDS) {
  describe(`a disabled endpoint's deliveries wait, and go once it is enabled (${backend.name})`, () => {
    let server: TestServer;
    let receiver: WebhookReceiver;
    let admin = '';
    before(async () => {
      receiver = await startWebhookReceiver();
      // A retry an hour away: a delivery that goes sooner went because enabling made it due.
      server = await startTestServer(
        { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_RETRY_DELAYS_MS: '3600000' },
        { backend },
      );
      admin = (await server.createAdminToken('hooks')).token;
    });
    after(async () => {
      await server?.close();
      await receiver?.close();
    });

    const deliveries = async (id: string) =>
      (await server.admin(admin, `/webhooks/${id}/deliveries`)).body as DeliveryBody[];

    test('parked with no next attempt while disabled, a replay included; due at once when enabled', async () => {
      const made = await server.admin(admin, '/webhooks', {
        method: 'POST',
        json: { url: `${receiver.url}/parked`, events: ['category.created'] },
      });
      assert.equal(made.status, 201, made.text);
      const { id } = made.body as { id: string };
      receiver.answer({ status: 500 }, { status: 500 }, { status: 500 });
      for (const name of ['One', 'Two', 'Three']) {
        assert.equal((await server.post('/v1/categories', { name })).status, 201);
      }
      const retrying = await eventually(
        'three failed first attempts',
        async () => {
          const rows = await deliveries(id);
          return rows.length === 3 && rows.every((row) => row.attempts === 1) && rows;
        },
        20_000,
      );
      for (const row of retrying) {
        assert.equal(row.state, 'pending');
        assert.ok(Date.parse(row.nextAttemptAt ?? '') > Date.now() + 3_000_000, 'the retry is an hour away');
      }

      const disabled = await server.admin(admin, `/webhooks/${id}`, {
        method: 'PATCH',
        json: { enabled: false },
      });
      assert.equal(disabled.status, 200, disabled.text);
      const replayed = await server.admin(admin, `/webhooks/${id}/deliveries/${retrying[0]?.id}/replay`, {
        method: 'POST',
      });
      assert.equal(replayed.status, 200, replayed.text);
      assert.equal((replayed.body as DeliveryBody).nextAttemptAt, null, 'the replay says it waits');
      for (const row of await deliveries(id)) {
        assert.deepEqual([row.state, row.nextAttemptAt], ['pending', null], 'parked: no attempt is due');
      }
      // A claim of everything due now, its attempts awaited: none of them.
      assert.equal(await server.deps.webhooks.dispatcher.runOnce(), 0);
      assert.equal(receiver.received.length, 3, 'nothing is sent while it is disabled');

      const enabled = await server.admin(admin, `/webhooks/${id}`, {
        method: 'PATCH',
        json: { enabled: true },
      });
      assert.equal(enabled.status, 200, enabled.text);
      await eventually(
        'every delivery delivered',
        async () => {
          const rows = await deliveries(id);
          return rows.every((row) => row.state === 'delivered') && rows;
        },
        20_000,
      );
      assert.equal(receiver.received.length, 6);
      await server.admin(admin, `/webhooks/${id}`, { method: 'DELETE' });
    });

    test('a 410 that disables it parks its other pending deliveries too, and what is recorded after', async () => {
      const made = await server.admin(admin, '/webhooks', {
        method: 'POST',
        json: { url: `${receiver.url}/gone`, events: ['pet.created'] },
      });
      const { id } = made.body as { id: string };
      const from = receiver.received.length;
      receiver.answer({ status: 500 }, { status: 500 }, { status: 410 });
      const category = await server.post('/v1/categories', { name: 'Gone' });
      const categoryId = (category.body as { id: number }).id;
      for (const name of ['A', 'B', 'C']) {
        assert.equal((await server.post('/v1/pets', { name, categoryId, status: 'available' })).status, 201);
      }
      await eventually(
        'three attempts recorded',
        async () => {
          const rows = await deliveries(id);
          return rows.length === 3 && rows.every((row) => row.attempts === 1);
        },
        20_000,
      );
      const endpoint = (await server.admin(admin, `/webhooks/${id}`)).body as {
        disabledReason: string | null;
      };
      assert.equal(endpoint.disabledReason, 'gone');
      const rows = await deliveries(id);
      const waiting = rows.filter((row) => row.state === 'pending');
      assert.equal(waiting.length, 2, JSON.stringify(rows));
      for (const row of waiting) assert.equal(row.nextAttemptAt, null, 'parked by the 410');
      assert.equal(await server.deps.webhooks.dispatcher.runOnce(), 0);
      assert.equal(receiver.received.length, from + 3);
    });
  });
}
