import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { BACKENDS } from '../support/backends.js';
import { eventProblems } from '../support/event-schemas.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { type Received, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

interface EventBody {
  id: string;
  type: string;
  createdAt: string;
  apiVersion: string;
  data: unknown;
}

const signatureHeaders = (received: Received) => ({
  'webhook-id': String(received.headers['webhook-id']),
  'webhook-timestamp': String(received.headers['webhook-timestamp']),
  'webhook-signature': String(received.headers['webhook-signature']),
});

for (const backend of BACKENDS) {
  describe(`the creates of /v1 tell their subscribers (${backend.name})`, () => {
    let server: TestServer;
    let receiver: WebhookReceiver;
    let verifier: Webhook;
    let admin = '';
    let endpointId = '';
    before(async () => {
      receiver = await startWebhookReceiver();
      server = await startTestServer({ WEBHOOKS_ALLOW_PRIVATE: 'true' }, { backend });
      admin = (await server.createAdminToken('hooks')).token;
      const made = await server.admin(admin, '/webhooks', {
        method: 'POST',
        json: { url: `${receiver.url}/shop`, events: ['category.created', 'pet.created', 'order.placed'] },
      });
      assert.equal(made.status, 201, made.text);
      const endpoint = made.body as { id: string; secret: string };
      verifier = new Webhook(endpoint.secret);
      endpointId = endpoint.id;
    });
    after(async () => {
      await server?.close();
      await receiver?.close();
    });

    /** The events received from `from` on, once `count` have arrived, verified and parsed. */
    async function events(from: number, count: number): Promise<{ event: EventBody; received: Received }[]> {
      await receiver.arrived(from + count);
      return receiver.received.slice(from).map((received) => ({
        event: verifier.verify(received.body, signatureHeaders(received)) as EventBody,
        received,
      }));
    }

    test('category.created, pet.created and order.placed arrive signed, each with the 201 body as data', async () => {
      const from = receiver.received.length;
      const category = await server.post('/v1/categories', { name: 'Hooks', description: 'for events' });
      assert.equal(category.status, 201, category.text);
      const categoryId = (category.body as { id: number }).id;
      const pet = await server.post('/v1/pets', { name: 'Ping', categoryId, status: 'available' });
      assert.equal(pet.status, 201, pet.text);
      const order = await server.post('/v1/store/orders', {
        petId: (pet.body as { id: number }).id,
        quantity: 1,
      });
      assert.equal(order.status, 201, order.text);

      const arrived = await events(from, 3);
      const byType = new Map(arrived.map(({ event }) => [event.type, event]));
      assert.deepEqual(byType.get('category.created')?.data, category.body);
      assert.deepEqual(byType.get('pet.created')?.data, pet.body);
      const placed = byType.get('order.placed');
      assert.deepEqual(placed?.data, order.body);
      assert.equal(placed?.apiVersion, 'v1');
      assert.match(placed?.id ?? '', /^evt_[0-9a-f]{32}$/);
      assert.ok(Math.abs(Date.parse(placed?.createdAt ?? '') - Date.now()) < 60_000);
      for (const { event, received } of arrived) assert.equal(received.headers['webhook-id'], event.id);

      // What a receiver must refuse: a body changed on the way, or a message from long ago.
      const sample = arrived[0]?.received as Received;
      assert.throws(
        () => verifier.verify(sample.body.replace('"v1"', '"v2"'), signatureHeaders(sample)),
        WebhookVerificationError,
      );
      const stale = {
        ...signatureHeaders(sample),
        'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600),
      };
      assert.throws(() => verifier.verify(sample.body, stale), WebhookVerificationError);
    });

    test('a refused create tells nothing, and a replayed one tells once', async () => {
      const from = receiver.received.length;
      const refused = await server.post('/v1/pets', {
        name: 'Nobody',
        categoryId: 987_654,
        status: 'available',
      });
      assert.equal(refused.status, 400, refused.text);

      const key = { 'idempotency-key': `hooks-${backend.storage}` };
      const first = await server.post('/v1/categories', { name: 'Once' }, key);
      const again = await server.post('/v1/categories', { name: 'Once' }, key);
      assert.deepEqual([first.status, again.status], [201, 201]);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      // The delivery log holds every event kept for the endpoint: once none is pending, all have arrived.
      await receiver.arrived(from + 1);
      for (;;) {
        const pending = await server.admin(admin, `/webhooks/${endpointId}/deliveries?state=pending`);
        if ((pending.body as unknown[]).length === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const told = (await events(from, 0)).map(({ event }) => [
        event.type,
        (event.data as { name: string }).name,
      ]);
      assert.deepEqual(told, [['category.created', 'Once']]);
    });

    test('every event told above has the schema the admin document publishes for its type', () => {
      assert.deepEqual(
        receiver.received.flatMap((received) => eventProblems(received.body)),
        [],
      );
      const types = new Set(
        receiver.received.map((received) => (JSON.parse(received.body) as EventBody).type),
      );
      assert.deepEqual([...types].sort(), ['category.created', 'order.placed', 'pet.created']);
    });
  });
}
