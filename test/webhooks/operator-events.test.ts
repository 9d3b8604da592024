import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DomainView } from '../../src/domains/index.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { eventProblems } from '../support/event-schemas.js';
import { freePort } from '../support/process.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const TARGET = 'edge.hooks.test';
const MINUTE = 60_000;

interface Told {
  type: string;
  data: Record<string, unknown>;
}

describe('operators hear of keys and custom domains from the changes themselves', () => {
  // A clock the test moves: a domain's checks and its 30 minutes without a certificate run on it.
  const clock = { at: Date.now(), now: () => clock.at };
  let dns: TestDnsServer;
  let receiver: WebhookReceiver;
  let server: TestServer;
  let admin = '';
  let endpointId = '';
  before(async () => {
    dns = await startDnsServer(new Map([[TARGET, { A: ['127.0.0.1'] }]]));
    receiver = await startWebhookReceiver();
    server = await startTestServer(
      {
        WEBHOOKS_ALLOW_PRIVATE: 'true',
        DOMAINS_TARGET: TARGET,
        DNS_RESOLVER: dns.address,
        // Nothing listens there: no certificate is ever served.
        TLS_CHECK_ADDRESS: `127.0.0.1:${await freePort()}`,
      },
      { clock },
    );
    admin = (await server.createAdminToken('operator')).token;
    const made = await server.admin(admin, '/webhooks', {
      method: 'POST',
      json: {
        url: `${receiver.url}/ops`,
        events: [
          'key.created',
          'key.rotated',
          'key.revoked',
          'key.usage_threshold',
          'key.banned',
          'key.expiring',
          'domain.verified',
          'domain.misconfigured',
          'domain.certificate_failed',
          'domain.removed',
        ],
      },
    });
    assert.equal(made.status, 201, made.text);
    endpointId = (made.body as { id: string }).id;
  });
  after(async () => {
    await server?.close();
    await receiver?.close();
    await dns?.close();
  });

  /**
   * The `count` events that arrived after the first `from`, once every delivery is recorded: the test moves
   * the clock next, and a delivery still leased when it jumps would be claimed and sent again.
   */
  async function told(from: number, count: number): Promise<Told[]> {
    await receiver.arrived(from + count);
    for (;;) {
      const pending = await server.admin(admin, `/webhooks/${endpointId}/deliveries?state=pending`);
      if ((pending.body as unknown[]).length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return receiver.received.slice(from, from + count).map((received) => JSON.parse(received.body) as Told);
  }

  test('key.created, key.rotated and key.revoked carry the key as the admin API shows it', async () => {
    const from = receiver.received.length;
    const created = await server.admin(admin, '/keys', {
      method: 'POST',
      json: { plan: 'pro', name: 'hooked' },
    });
    assert.equal(created.status, 201, created.text);
    const { key, ...shown } = created.body as { key: string; id: string };
    server.issuedKeys.push(key);
    const [createdEvent] = await told(from, 1);
    assert.equal(createdEvent?.type, 'key.created');
    assert.deepEqual(createdEvent?.data, shown);
    assert.ok(!JSON.stringify(createdEvent).includes(key), 'the key itself is never told');

    const rotated = await server.admin(admin, `/keys/${shown.id}/rotate`, { method: 'POST' });
    assert.equal(rotated.status, 201, rotated.text);
    const successor = rotated.body as { id: string; key: string };
    server.issuedKeys.push(successor.key);
    const [rotatedEvent] = await told(from + 1, 1);
    assert.equal(rotatedEvent?.type, 'key.rotated');
    assert.deepEqual([rotatedEvent?.data.id, rotatedEvent?.data.replacedBy], [shown.id, successor.id]);

    // Revoking the first key revokes its successor with it: each is told.
    const revoked = await server.admin(admin, `/keys/${shown.id}/revoke`, { method: 'POST' });
    assert.equal(revoked.status, 200, revoked.text);
    const revokedEvents = await told(from + 2, 2);
    assert.deepEqual(
      revokedEvents.map((event) => [event.type, event.data.id, event.data.state]).sort(),
      [
        ['key.revoked', shown.id, 'revoked'],
        ['key.revoked', successor.id, 'revoked'],
      ].sort(),
    );
    // Revoked again, nothing changes and nothing is told.
    await server.admin(admin, `/keys/${shown.id}/revoke`, { method: 'POST' });
    const other = await server.admin(admin, '/keys', {
      method: 'POST',
      json: { plan: 'free', name: 'marker' },
    });
    server.issuedKeys.push((other.body as { key: string }).key);
    const [marker] = await told(from + 4, 1);
    assert.deepEqual([marker?.type, marker?.data.name], ['key.created', 'marker']);
  });

  test('key.usage_threshold at 80% and 100% of the day, then key.banned, from real traffic', async () => {
    const created = receiver.received.length;
    const made = await server.admin(admin, '/keys', {
      method: 'POST',
      json: { plan: 'enterprise', name: 'busy', perMinute: 5, perDay: 5 },
    });
    assert.equal(made.status, 201, made.text);
    const { key, id } = made.body as { key: string; id: string };
    server.issuedKeys.push(key);
    await told(created, 1);
    const from = created + 1;
    const asKey = { headers: { authorization: `Bearer ${key}` } };
    // The server sees a key made through its own admin API at once; a 401 would count nothing anyway.
    const statuses: number[] = [];
    for (let sent = 0; sent < 70; sent += 1)
      statuses.push((await server.call('/v1/categories', asKey)).status);
    assert.deepEqual(statuses.slice(0, 5), [200, 200, 200, 200, 200]);
    assert.equal(statuses[5], 429);
    const events = await told(from, 3);
    const usage = (event: Told | undefined) =>
      event?.data.usage as { threshold: number; used: number } | undefined;
    const thresholds = events.filter((event) => event.type === 'key.usage_threshold');
    assert.deepEqual(
      thresholds.map((event) => [event.data.id, usage(event)?.threshold, usage(event)?.used]).sort(),
      [
        [id, 100, 5],
        [id, 80, 4],
      ],
    );
    const banned = events.find((event) => event.type === 'key.banned');
    assert.deepEqual([banned?.data.id, banned?.data.state], [id, 'banned']);
    assert.ok(statuses.at(-1) === 429 || statuses.at(-1) === 403, `banned: ${statuses.at(-1)}`);
  });

  test('key.expiring a week and a day before the expiry, each once, whichever instance looks', async () => {
    const expiresAt = new Date(clock.at + 3 * 24 * 60 * MINUTE).toISOString();
    const created = receiver.received.length;
    const made = await server.admin(admin, '/keys', {
      method: 'POST',
      json: { plan: 'free', name: 'short-lived', expiresAt },
    });
    assert.equal(made.status, 201, made.text);
    const { key, id } = made.body as { key: string; id: string };
    server.issuedKeys.push(key);
    await told(created, 1);
    const from = created + 1;

    const notice = (event: Told | undefined) => [
      event?.type,
      event?.data.id,
      event?.data.expiresAt,
      event?.data.expiresWithin,
    ];
    assert.equal(await server.deps.keyNotices.runNow(), 1);
    assert.equal(await server.deps.keyNotices.runNow(), 0, 'told once');
    assert.deepEqual(notice((await told(from, 1))[0]), ['key.expiring', id, expiresAt, '7d']);
    clock.at += 2.5 * 24 * 60 * MINUTE;
    assert.equal(await server.deps.keyNotices.runNow(), 1);
    assert.equal(await server.deps.keyNotices.runNow(), 0, 'told once');
    assert.deepEqual(notice((await told(from + 1, 1))[0]), ['key.expiring', id, expiresAt, '1d']);
  });

  test('domain.verified, domain.certificate_failed, domain.misconfigured and domain.removed follow its checks', async () => {
    const name = 'shop.hooks.test';
    const status = async () => (await server.admin(admin, `/domains/${name}`)).body as DomainView;
    const checkNow = () => server.deps.domains.checks.runNow();
    const from = receiver.received.length;
    const added = await server.admin(admin, '/domains', { method: 'POST', json: { name } });
    assert.equal(added.status, 201, added.text);
    await checkNow();
    assert.equal((await status()).state, 'pending', 'pending tells nothing');

    dns.zone.set(name, { CNAME: TARGET });
    clock.at += MINUTE;
    await checkNow();
    const verified = await status();
    assert.equal(verified.state, 'verified', verified.reason);
    const [verifiedEvent] = await told(from, 1);
    assert.equal(verifiedEvent?.type, 'domain.verified');
    assert.deepEqual(verifiedEvent?.data, verified);

    // Verified for 30 minutes, and no certificate is served.
    for (let minute = 0; minute < 40 && (await status()).state !== 'certificate_failed'; minute += 1) {
      clock.at += MINUTE;
      await checkNow();
    }
    assert.equal((await status()).state, 'certificate_failed');
    const [failedEvent] = await told(from + 1, 1);
    assert.deepEqual(
      [failedEvent?.type, failedEvent?.data.state],
      ['domain.certificate_failed', 'certificate_failed'],
    );

    dns.zone.set(name, { CNAME: 'elsewhere.example.test' });
    clock.at += 24 * 60 * MINUTE;
    await checkNow();
    assert.equal((await status()).state, 'misconfigured');
    const [misconfigured] = await told(from + 2, 1);
    assert.deepEqual([misconfigured?.type, misconfigured?.data.name], ['domain.misconfigured', name]);

    const removed = await server.admin(admin, `/domains/${name}`, { method: 'DELETE' });
    assert.equal(removed.status, 200, removed.text);
    const [removedEvent] = await told(from + 3, 1);
    assert.deepEqual([removedEvent?.type, removedEvent?.data.name], ['domain.removed', name]);
  });

  test('every event told above has the schema the admin document publishes for its type', () => {
    assert.deepEqual(
      receiver.received.flatMap((received) => eventProblems(received.body)),
      [],
    );
    const types = new Set(receiver.received.map((received) => (JSON.parse(received.body) as Told).type));
    assert.equal(types.size, 10, [...types].join(', '));
  });
});
