import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { WebhookDelivery } from '../../src/contract/index.js';
import { eventually } from '../support/assertions.js';
import { awaitKeyEverywhere, createKey, startFleet } from '../support/fleet.js';
import { runCli, type ServerProcess, UNLIMITED_KEY } from '../support/process.js';
import { request } from '../support/server.js';
import { type Received, startWebhookReceiver } from '../support/webhook-receiver.js';

/** Each unit is a category, two pets in it and an order of the first: four creates, 1,000 in all. */
const UNITS = 250;
const CREATES = UNITS * 4;
/** Units under way at once, spread over both instances: bounded, as a real client fleet would be. */
const WORKERS = 12;
/** How long the receiver takes over every other request, once it answers at all. */
const SLOW_MS = 50;
/** How long the receiver holds its first requests at most. */
const HOLD_MS = 5_000;
/**
 * Connections an instance keeps to one receiver (src/webhooks/attempt.ts): more requests open at once than
 * this were sent by both instances at the same moment.
 */
const SOCKETS_PER_INSTANCE = 16;

interface EventBody {
  id: string;
  type: string;
  data: { id: number };
}

const signatureHeaders = (received: Received) => ({
  'webhook-id': String(received.headers['webhook-id']),
  'webhook-timestamp': String(received.headers['webhook-timestamp']),
  'webhook-signature': String(received.headers['webhook-signature']),
});

/**
 * Issue 42's bar for webhooks across a fleet: two instances over one PostgreSQL database and Redis deliver
 * every event of 1,000 creates, and never attempt one delivery twice at once (the claim's `SKIP LOCKED` and
 * its lease). A delivery sent again after the one before it was answered is at least once, not a failure.
 */
test(`two instances, ${CREATES} creates: every event delivered, none attempted twice at once`, async (t) => {
  // The receiver answers nothing until half the creates are made (or 5 s have passed, well inside an
  // attempt's 10 s timeout, on a slow machine): both instances' attempts pile up at it, and a backlog in the
  // outbox, which both then drain at once, claiming from the same rows, while the other half is created.
  // After that, every other answer is slow.
  let open = false;
  let openGate = () => {};
  const gate = new Promise<void>((resolve) => {
    openGate = () => {
      open = true;
      resolve();
    };
  });
  const receiver = await startWebhookReceiver({
    delay: (index) => (!open ? gate : index % 2 === 0 ? SLOW_MS : 0),
  });
  t.after(() => receiver.close());
  const fleet = await startFleet([0, 0], { WEBHOOKS_ALLOW_PRIVATE: 'true', ACCESS_LOG: 'off' });
  t.after(() => fleet.stop());
  const servers = fleet.servers as [ServerProcess, ServerProcess];
  const { key } = await createKey(fleet.env, ...UNLIMITED_KEY);
  await awaitKeyEverywhere(servers, key);
  const made = await runCli(['admin-tokens', 'create', '--name', 'fleet hooks', '--json'], fleet.env);
  assert.equal(made.code, 0, made.stderr);
  const admin = { authorization: `Bearer ${(JSON.parse(made.stdout) as { token: string }).token}` };
  const adminGet = (path: string) => request(`${servers[1].url}/admin/v1${path}`, { headers: admin });

  const endpoint = await request(`${servers[0].url}/admin/v1/webhooks`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body: JSON.stringify({
      url: `${receiver.url}/fleet`,
      events: ['category.created', 'pet.created', 'order.placed'],
    }),
  });
  assert.equal(endpoint.status, 201, endpoint.text);
  const { id: endpointId, secret } = endpoint.body as { id: string; secret: string };

  // Each 201 body, by its event's type and the created row's id: what the event must carry as data.
  const expected = new Map<string, unknown>();
  const create = async (server: ServerProcess, path: string, type: string, body: unknown) => {
    const answer = await request(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(answer.status, 201, `${path} on ${server.url}: ${answer.text}`);
    const created = answer.body as { id: number };
    expected.set(`${type}:${created.id}`, created);
    if (expected.size === CREATES / 2) openGate();
    return created.id;
  };
  const started = Date.now();
  const opening = setTimeout(openGate, HOLD_MS);
  t.after(() => clearTimeout(opening));
  let next = 0;
  const worker = async () => {
    for (let unit = next++; unit < UNITS; unit = next++) {
      // Every unit crosses instances: a row made on one is referred to by a create on the other.
      const [a, b] = unit % 2 === 0 ? [servers[0], servers[1]] : [servers[1], servers[0]];
      const categoryId = await create(a, '/v1/categories', 'category.created', { name: `fleet ${unit}` });
      const pet = { categoryId, status: 'available' };
      const petId = await create(b, '/v1/pets', 'pet.created', { ...pet, name: `first ${unit}` });
      await create(a, '/v1/pets', 'pet.created', { ...pet, name: `second ${unit}` });
      await create(b, '/v1/store/orders', 'order.placed', { petId, quantity: 1 });
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  const createdIn = Date.now() - started;
  assert.equal(expected.size, CREATES);

  // Every event at the receiver, signed, as its create answered it; waited for as it arrives.
  const verifier = new Webhook(secret);
  const told = new Map<string, string>();
  let read = 0;
  await eventually(
    `all ${CREATES} events arrived`,
    () => {
      for (; read < receiver.received.length; read += 1) {
        const received = receiver.received[read] as Received;
        const event = verifier.verify(received.body, signatureHeaders(received)) as EventBody;
        assert.equal(received.headers['webhook-id'], event.id);
        const what = `${event.type}:${event.data.id}`;
        assert.deepEqual(event.data, expected.get(what), `${what} is told as it was created`);
        // A repeat is the same event: one id for one create.
        assert.equal(told.get(what) ?? event.id, event.id, `${what} is one event`);
        told.set(what, event.id);
      }
      return told.size === CREATES;
    },
    90_000,
  );
  const deliveredIn = Date.now() - started;

  // The delivery log agrees: once nothing is pending (attempts are recorded in batches after their answers),
  // each of the 1,000 deliveries is delivered, with the 200 of its receiver.
  await eventually(
    'no delivery left pending',
    async () => {
      const pending = await adminGet(`/webhooks/${endpointId}/deliveries?state=pending&limit=1`);
      assert.equal(pending.status, 200, pending.text);
      return (pending.body as unknown[]).length === 0;
    },
    90_000,
  );
  const deliveries: WebhookDelivery[] = [];
  for (let before = ''; ; ) {
    const page = await adminGet(`/webhooks/${endpointId}/deliveries?limit=500${before}`);
    assert.equal(page.status, 200, page.text);
    const rows = page.body as WebhookDelivery[];
    if (rows.length === 0) break;
    deliveries.push(...rows);
    before = `&before=${rows.at(-1)?.id}`;
  }
  assert.equal(deliveries.length, CREATES);
  assert.deepEqual(
    deliveries.filter((delivery) => delivery.state !== 'delivered' || delivery.lastStatus !== 200),
    [],
  );
  assert.deepEqual(new Set(deliveries.map((delivery) => delivery.eventId)), new Set(told.values()));

  // Both instances had attempts under way at the same moment: more than one instance's connections.
  assert.ok(
    receiver.peakOpen() > SOCKETS_PER_INSTANCE,
    `at most ${receiver.peakOpen()} requests open at once`,
  );
  // Never one delivery twice at once: no request came while another of its webhook-id was still open.
  assert.deepEqual(
    receiver.overlaps.map((received) => received.headers['webhook-id']),
    [],
    'a webhook-id was in flight twice at once',
  );
  const repeats = receiver.received.length - CREATES;
  const attempts = deliveries.reduce((sum, delivery) => sum + delivery.attempts, 0);
  t.diagnostic(
    `${CREATES} creates in ${createdIn} ms, all delivered ${deliveredIn} ms after the first; ` +
      `${receiver.peakOpen()} requests open at once at most; ${repeats} sent again; ${attempts} attempts recorded`,
  );
});
