import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../support/assertions.js';
import { BACKENDS } from '../support/backends.js';
import { freePort } from '../support/process.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const DAY_MS = 86_400_000;

interface DeliveryBody {
  id: number;
  state: string;
  eventType: string;
}

for (const backend of BACKENDS) {
  describe(`old deliveries are pruned, pending ones kept (${backend.name})`, () => {
    let server: TestServer;
    let receiver: WebhookReceiver;
    let admin = '';
    /** The server's clock runs this far ahead of the machine's. */
    let ahead = 0;
    before(async () => {
      receiver = await startWebhookReceiver();
      server = await startTestServer(
        {
          WEBHOOKS_ALLOW_PRIVATE: 'true',
          WEBHOOKS_RETRY_DELAYS_MS: '5000000000',
          WEBHOOKS_RETENTION_DAYS: '30',
        },
        { backend, clock: { now: () => Date.now() + ahead } },
      );
      admin = (await server.createAdminToken('hooks')).token;
    });
    after(async () => {
      await server?.close();
      await receiver?.close();
    });

    const endpoint = async (url: string, events: string[]) => {
      const made = await server.admin(admin, '/webhooks', { method: 'POST', json: { url, events } });
      assert.equal(made.status, 201, made.text);
      return (made.body as { id: string }).id;
    };
    const deliveries = async (id: string) =>
      (await server.admin(admin, `/webhooks/${id}/deliveries`)).body as DeliveryBody[];
    const count = async (sql: string) => Number((await server.query<{ n: number }>(sql))[0]?.n);

    test('delivered ones go with their attempts and events after WEBHOOKS_RETENTION_DAYS; pending ones stay', async () => {
      const answered = await endpoint(`${receiver.url}/answered`, ['category.created']);
      // Nothing listens there: its delivery fails once and waits 57 days for its retry, pending past the prune.
      const waiting = await endpoint(`http://127.0.0.1:${await freePort()}/`, ['pet.created']);
      const category = await server.post('/v1/categories', { name: 'Kept a month' });
      await server.post('/v1/categories', { name: 'Kept a month too' });
      await server.post('/v1/pets', {
        name: 'Waiting',
        categoryId: (category.body as { id: number }).id,
        status: 'available',
      });
      const delivered = await eventually(
        'both categories delivered',
        async () => {
          const rows = await deliveries(answered);
          return rows.length === 2 && rows.every((row) => row.state === 'delivered') && rows;
        },
        20_000,
      );
      const attemptsOfDelivered = () =>
        count(
          `SELECT count(*) AS n FROM webhook_attempts WHERE delivery_id IN (${delivered.map((row) => row.id).join(',')})`,
        );
      assert.equal(await attemptsOfDelivered(), 2);
      await eventually(
        'the pet tried once',
        async () => (await count('SELECT count(*) AS n FROM webhook_attempts')) >= 3,
      );

      const { pruning } = server.deps.webhooks;
      assert.deepEqual(await pruning.prune(), { deliveries: 0, events: 0 }, 'nothing is a month old yet');

      ahead = 31 * DAY_MS;
      const pruned = await pruning.prune();
      assert.deepEqual(pruned, { deliveries: 2, events: 2 });
      assert.deepEqual(await deliveries(answered), []);
      const kept = await deliveries(waiting);
      assert.equal(kept.length, 1, 'the pending delivery stays, however old');
      assert.deepEqual(
        [kept[0]?.state, kept[0]?.eventType],
        ['pending', 'pet.created'],
        'and so does its event',
      );
      assert.equal(await attemptsOfDelivered(), 0, 'the attempts went with their deliveries');
      assert.equal(await count('SELECT count(*) AS n FROM webhook_deliveries'), 1);
      assert.equal(await count('SELECT count(*) AS n FROM webhook_events'), 1);
      assert.deepEqual(await pruning.prune(), { deliveries: 0, events: 0 });
    });
  });
}
