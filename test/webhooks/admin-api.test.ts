import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { assertError } from '../support/assertions.js';
import { eventProblems, testEventProblems } from '../support/event-schemas.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { type Received, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

interface EndpointBody {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  disabledReason: string | null;
  previousSecretUntil: string | null;
  secret?: string;
}
interface DeliveryBody {
  id: number;
  eventId: string;
  state: string;
  attempts: number;
  lastStatus: number | null;
  log?: { attempt: number; status: number | null; response: string }[];
}

const signatureHeaders = (received: Received) => ({
  'webhook-id': String(received.headers['webhook-id']),
  'webhook-timestamp': String(received.headers['webhook-timestamp']),
  'webhook-signature': String(received.headers['webhook-signature']),
});

describe('webhooks through the admin API, delivered to a real receiver', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let admin = '';
  before(async () => {
    receiver = await startWebhookReceiver();
    // Retries 50 ms apart, so that three attempts take a moment, not minutes.
    server = await startTestServer({ WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_RETRY_DELAYS_MS: '50,50,50' });
    admin = (await server.createAdminToken('hooks')).token;
  });
  after(async () => {
    await server?.close();
    await receiver?.close();
  });

  const create = async (json: unknown) => server.admin(admin, '/webhooks', { method: 'POST', json });
  const deliveries = async (id: string) =>
    (await server.admin(admin, `/webhooks/${id}/deliveries`)).body as DeliveryBody[];
  /** Resolves once the endpoint's newest delivery has left `pending`. */
  async function settled(id: string): Promise<DeliveryBody> {
    for (;;) {
      const [newest] = await deliveries(id);
      if (newest !== undefined && newest.state !== 'pending') return newest;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  test("a capability URL's path and query are shown to admins only, and never kept in the audit", async () => {
    const capability = `http://127.0.0.1:${receiver.port}/services/T0AB/B0CD/s3cretcapability?token=t0ken&team=7`;
    const made = await create({ url: capability, events: ['pet.created'] });
    assert.equal(made.status, 201, made.text);
    const { id } = made.body as EndpointBody;
    assert.equal((made.body as EndpointBody).url, capability, 'the admin who made it sees it whole');
    for (const role of ['support', 'viewer'] as const) {
      const token = (await server.createAdminToken(`${role} desk`, role)).token;
      const one = (await server.admin(token, `/webhooks/${id}`)).body as EndpointBody;
      assert.equal(one.url, `http://127.0.0.1:${receiver.port}/***?token=***&team=***`, role);
      const all = await server.admin(token, '/webhooks');
      assert.ok(!all.text.includes('s3cretcapability') && !all.text.includes('t0ken'), role);
    }
    const owner = (await server.admin(admin, `/webhooks/${id}`)).body as EndpointBody;
    assert.equal(owner.url, capability);
    const audit = await server.admin(admin, `/audit?target=${id}`);
    assert.equal(audit.status, 200, audit.text);
    assert.ok(!audit.text.includes('s3cretcapability') && !audit.text.includes('t0ken'), audit.text);
    assert.equal((await server.admin(admin, `/webhooks/${id}`, { method: 'DELETE' })).status, 200);
  });

  test('an endpoint is made with its secret shown once; a test event arrives and verifies with it', async () => {
    const made = await create({
      url: `http://hook:pa55@127.0.0.1:${receiver.port}/in`,
      events: ['order.placed', 'pet.created'],
      description: 'shop',
    });
    assert.equal(made.status, 201, made.text);
    const endpoint = made.body as EndpointBody;
    assert.match(endpoint.secret ?? '', /^whsec_/);
    assert.equal(endpoint.url, `http://***:***@127.0.0.1:${receiver.port}/in`);
    assert.deepEqual(endpoint.events, ['order.placed', 'pet.created']);
    const shown = await server.admin(admin, `/webhooks/${endpoint.id}`);
    assert.equal((shown.body as EndpointBody).secret, undefined, 'never shown again');
    assert.ok(!(await server.admin(admin, '/webhooks')).text.includes('pa55'));
    assert.ok(
      !(await server.admin(admin, '/audit')).text.includes('pa55'),
      'the audit log holds no credential',
    );

    // The URL as shown, sent back with a change: its masked credentials are refused, not stored as `***`.
    const masked = await server.admin(admin, `/webhooks/${endpoint.id}`, {
      method: 'PATCH',
      json: { url: endpoint.url.replace('/in', '/elsewhere') },
    });
    assertError(masked, 400, 'validation_failed');
    assert.match((masked.body as { message: string }).message, /show as \*\*\*; give them again in full/);

    const sent = await server.admin(admin, `/webhooks/${endpoint.id}/test`, { method: 'POST' });
    assert.equal(sent.status, 201, sent.text);
    await receiver.arrived(1);
    const received = receiver.received[0] as Received;
    assert.equal(received.headers.authorization, `Basic ${Buffer.from('hook:pa55').toString('base64')}`);
    const event = new Webhook(endpoint.secret as string).verify(
      received.body,
      signatureHeaders(received),
    ) as {
      id: string;
      type: string;
      data: unknown;
    };
    assert.deepEqual(
      [event.id, event.type, event.data],
      [(sent.body as { eventId: string }).eventId, 'order.placed', { test: true, endpoint: endpoint.id }],
    );
    // Its own schema, not its type's: its data is no order.
    assert.deepEqual(testEventProblems(received.body), []);
    assert.notDeepEqual(eventProblems(received.body), []);
    const delivery = await settled(endpoint.id);
    assert.deepEqual([delivery.state, delivery.attempts, delivery.lastStatus], ['delivered', 1, 200]);
  });

  test('500, 500, 200: three attempts with one webhook-id, in the log; replay sends it again with that id', async () => {
    const { id } = (await create({ url: `${receiver.url}/flaky`, events: ['pet.created'] }))
      .body as EndpointBody;
    const from = receiver.received.length;
    receiver.answer({ status: 500, body: 'one' }, { status: 500, body: 'two' });
    await server.admin(admin, `/webhooks/${id}/test`, { method: 'POST' });
    const delivery = await settled(id);
    assert.deepEqual([delivery.state, delivery.attempts], ['delivered', 3]);
    const sent = receiver.received.slice(from);
    assert.equal(new Set(sent.map((request) => request.headers['webhook-id'])).size, 1);
    const detail = (await server.admin(admin, `/webhooks/${id}/deliveries/${delivery.id}`))
      .body as DeliveryBody;
    assert.deepEqual(
      detail.log?.map((attempt) => [attempt.attempt, attempt.status, attempt.response]),
      [
        [1, 500, 'one'],
        [2, 500, 'two'],
        [3, 200, 'ok'],
      ],
    );

    const replayed = await server.admin(admin, `/webhooks/${id}/deliveries/${delivery.id}/replay`, {
      method: 'POST',
    });
    assert.equal(replayed.status, 200, replayed.text);
    await receiver.arrived(from + 4);
    assert.equal(receiver.received[from + 3]?.headers['webhook-id'], sent[0]?.headers['webhook-id']);
  });

  test('410 disables the endpoint; a rotated secret and the one before both sign until the overlap ends', async () => {
    const gone = (await create({ url: `${receiver.url}/gone`, events: ['key.created'] }))
      .body as EndpointBody;
    receiver.answer({ status: 410 });
    await server.admin(admin, `/webhooks/${gone.id}/test`, { method: 'POST' });
    assert.equal((await settled(gone.id)).lastStatus, 410);
    const disabled = (await server.admin(admin, `/webhooks/${gone.id}`)).body as EndpointBody;
    assert.deepEqual([disabled.enabled, disabled.disabledReason], [false, 'gone']);
    assertError(
      await server.admin(admin, `/webhooks/${gone.id}/test`, { method: 'POST' }),
      400,
      'validation_failed',
    );

    const made = (await create({ url: `${receiver.url}/rotating`, events: ['key.created'] }))
      .body as EndpointBody;
    const rotated = await server.admin(admin, `/webhooks/${made.id}/rotate-secret`, { method: 'POST' });
    assert.equal(rotated.status, 201, rotated.text);
    const next = rotated.body as EndpointBody;
    assert.notEqual(next.secret, made.secret);
    assert.ok(next.previousSecretUntil !== null);
    const from = receiver.received.length;
    await server.admin(admin, `/webhooks/${made.id}/test`, { method: 'POST' });
    await receiver.arrived(from + 1);
    const received = receiver.received[from] as Received;
    for (const secret of [made.secret, next.secret]) {
      new Webhook(secret as string).verify(received.body, signatureHeaders(received));
    }
  });

  test('bad input is a clear 400, an unknown endpoint 404, and nothing is made', async () => {
    const before = ((await server.admin(admin, '/webhooks')).body as unknown[]).length;
    assertError(
      await create({ url: 'ftp://example.com/', events: ['pet.created'] }),
      400,
      'validation_failed',
    );
    assertError(await create({ url: 'not a url', events: ['pet.created'] }), 400, 'validation_failed');
    const unknown = await create({ url: `${receiver.url}/x`, events: ['pet.sold'] });
    assertError(unknown, 400, 'validation_failed');
    assert.match((unknown.body as { message: string }).message, /"pet\.sold" is not an event type/);
    assertError(await create({ url: `${receiver.url}/x`, events: [] }), 400, 'validation_failed');
    const many = await create({
      url: `${receiver.url}/x`,
      events: Array.from({ length: 51 }, () => 'pet.created'),
    });
    assertError(many, 400, 'validation_failed');
    assert.equal((many.body as { message: string }).message, 'events must hold at most 50 items');
    assertError(await create({ url: `${receiver.url}/x`, events: ['pet.created'], secret: 'mine' }), 400);
    assert.equal(((await server.admin(admin, '/webhooks')).body as unknown[]).length, before);

    assertError(await server.admin(admin, '/webhooks/we_00000000000000000000'), 404, 'not_found');
    assertError(await server.admin(admin, '/webhooks/nope'), 400, 'validation_failed');
    assertError(
      await server.admin(admin, '/webhooks/we_00000000000000000000/deliveries/1'),
      404,
      'not_found',
    );
  });
});

test('without WEBHOOKS_ALLOW_PRIVATE, loopback and metadata targets are refused when made', async () => {
  const server = await startTestServer();
  try {
    const { token } = await server.createAdminToken('hooks');
    for (const url of ['http://127.0.0.1:9/in', 'http://169.254.169.254/latest', 'http://[::1]/in']) {
      const refused = await server.admin(token, '/webhooks', {
        method: 'POST',
        json: { url, events: ['pet.created'] },
      });
      assertError(refused, 400, 'validation_failed');
      assert.match((refused.body as { message: string }).message, /WEBHOOKS_ALLOW_PRIVATE=true/);
    }
  } finally {
    await server.close();
  }
});
