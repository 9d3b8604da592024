import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AuditEntry } from '../../src/audit/index.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import type { AttemptOutcome, EventType, StoredEvent } from '../../src/webhooks/index.js';
import { FRESH_STORES } from '../support/fresh-storage.js';

const audited = (action: AuditEntry['action'], target: string): AuditEntry => ({
  at: new Date().toISOString(),
  actor: 'cli',
  action,
  target,
  details: {},
});

let events = 0;
const eventOf = (type: EventType, data: unknown = {}, createdAt = Date.now()): StoredEvent => {
  events += 1;
  const id = `evt_test_${events}`;
  return { id, type, createdAt, payload: JSON.stringify({ id, type, data }) };
};

const failedAttempt = (
  deliveryId: number,
  attempt: number,
  at: number,
  next: number | null,
): AttemptOutcome => ({
  attempt: {
    deliveryId,
    attempt,
    at,
    status: 500,
    latencyMs: 3.5,
    excerpt: 'boom',
    error: null,
    nextAttemptAt: next,
  },
  state: next === null ? 'failed' : 'pending',
  nextAttemptAt: next,
});

for (const [kind, fresh] of Object.entries(FRESH_STORES)) {
  describe(`webhook endpoints and their outbox (${kind})`, () => {
    let database: Awaited<ReturnType<typeof fresh>>;
    let storage: Storage;
    let made = 0;
    const endpoint = async (types: EventType[], url = 'https://hooks.example.com/in') => {
      made += 1;
      const id = `we_${kind}_${made}`;
      return storage.webhooks.createEndpoint(
        {
          id,
          url,
          description: `endpoint ${made}`,
          events: types,
          secret: `whsec_${'A'.repeat(32)}`,
          createdAt: Date.now(),
        },
        audited('webhook.created', id),
      );
    };
    /** Every due delivery now, claimed and recorded delivered, so that each test starts with none due. */
    const drain = async () => {
      for (const due of await storage.webhooks.claimDue(Date.now() + 1, 1_000, 60_000)) {
        await storage.webhooks.recordAttempts([
          {
            attempt: {
              deliveryId: due.id,
              attempt: due.attempts + 1,
              at: Date.now(),
              status: 200,
              latencyMs: 1,
              excerpt: '',
              error: null,
              nextAttemptAt: null,
            },
            state: 'delivered',
            nextAttemptAt: null,
          },
        ]);
      }
    };

    before(async () => {
      database = await fresh();
      storage = await createStorage(database.config, { createDatabase: true });
    });
    after(async () => {
      await storage.close();
      await database.drop();
    });

    test('an endpoint is kept with its event types, changed, and deleted, each change audited', async () => {
      const made = await endpoint(['pet.created', 'category.created']);
      assert.deepEqual(made.events, ['category.created', 'pet.created']);
      assert.equal(made.enabled, true);
      assert.deepEqual(await storage.webhooks.getEndpoint(made.id), made);
      assert.ok((await storage.webhooks.listEndpoints()).some((listed) => listed.id === made.id));

      const changed = await storage.webhooks.updateEndpoint(
        made.id,
        {
          events: ['order.placed'],
          description: 'orders',
          enabled: false,
          disabledReason: 'manual',
          at: made.createdAt + 5,
        },
        audited('webhook.updated', made.id),
      );
      assert.deepEqual(
        [changed?.events, changed?.description, changed?.enabled, changed?.disabledReason, changed?.url],
        [['order.placed'], 'orders', false, 'manual', made.url],
      );
      const rotated = await storage.webhooks.updateEndpoint(
        made.id,
        {
          secret: `whsec_${'B'.repeat(32)}`,
          previousSecret: made.secret,
          previousSecretUntil: 42,
          at: made.createdAt + 6,
        },
        audited('webhook.secret_rotated', made.id),
      );
      assert.deepEqual(
        [rotated?.secret, rotated?.previousSecret, rotated?.previousSecretUntil],
        [`whsec_${'B'.repeat(32)}`, made.secret, 42],
      );
      assert.equal(rotated?.description, 'orders', 'what a change leaves out stays');

      assert.equal(await storage.webhooks.deleteEndpoint(made.id, audited('webhook.deleted', made.id)), true);
      assert.equal(await storage.webhooks.getEndpoint(made.id), undefined);
      assert.equal(
        await storage.webhooks.deleteEndpoint(made.id, audited('webhook.deleted', made.id)),
        false,
      );
      assert.equal(
        await storage.webhooks.updateEndpoint(made.id, { at: 1 }, audited('webhook.updated', made.id)),
        undefined,
      );
      const actions = (await storage.audit.list({ after: 0, target: made.id, limit: 10 })).map(
        (entry) => entry.action,
      );
      assert.deepEqual(actions, [
        'webhook.created',
        'webhook.updated',
        'webhook.secret_rotated',
        'webhook.deleted',
      ]);
    });

    test('a create with an event keeps it, with a delivery for each enabled subscriber, in its own transaction', async () => {
      await drain();
      const subscribed = await endpoint(['category.created']);
      const other = await endpoint(['pet.created']);
      const disabled = await endpoint(['category.created']);
      await storage.webhooks.updateEndpoint(
        disabled.id,
        { enabled: false, disabledReason: 'manual', at: Date.now() },
        audited('webhook.updated', disabled.id),
      );

      const created = await storage.create(
        'createCategory',
        { name: 'Outboxed', description: 'kept with its event' },
        undefined,
        { type: 'category.created', make: (category) => eventOf('category.created', category) },
      );
      assert.ok(created.ok);
      const deliveries = await storage.webhooks.listDeliveries(subscribed.id, { limit: 10 });
      assert.equal(deliveries.length, 1);
      assert.deepEqual(
        [deliveries[0]?.state, deliveries[0]?.eventType, deliveries[0]?.attempts],
        ['pending', 'category.created', 0],
      );
      assert.deepEqual(await storage.webhooks.listDeliveries(other.id, { limit: 10 }), []);
      assert.deepEqual(await storage.webhooks.listDeliveries(disabled.id, { limit: 10 }), []);

      const [due] = await storage.webhooks.claimDue(Date.now() + 1, 10, 60_000);
      assert.equal(due?.endpointId, subscribed.id);
      assert.deepEqual(JSON.parse(due?.payload ?? '{}').data, created.created);

      // A refused create makes nothing, and so tells of nothing:
      const refused = await storage.create(
        'createPet',
        { name: 'Nobody', categoryId: 987_654, status: 'available' },
        undefined,
        { type: 'pet.created', make: (pet) => eventOf('pet.created', pet) },
      );
      assert.equal(refused.ok, false);
      assert.deepEqual(await storage.webhooks.listDeliveries(other.id, { limit: 10 }), []);
      for (const made of [subscribed, other, disabled]) {
        await storage.webhooks.deleteEndpoint(made.id, audited('webhook.deleted', made.id));
      }
    });

    test('an event no endpoint takes is not kept; one sent to a single endpoint goes whatever it subscribes to', async () => {
      await drain();
      assert.equal(await storage.webhooks.publish(eventOf('domain.removed')), 0);
      const only = await endpoint(['pet.created']);
      assert.equal(await storage.webhooks.publish(eventOf('key.created'), only.id), 1);
      assert.equal(await storage.webhooks.publish(eventOf('key.created'), 'we_missing'), 0);
      assert.equal(
        (await storage.webhooks.listDeliveries(only.id, { limit: 10 }))[0]?.eventType,
        'key.created',
      );
      await storage.webhooks.deleteEndpoint(only.id, audited('webhook.deleted', only.id));
    });

    test('a claimed delivery is claimed by no one else until it is recorded or its lease runs out', async () => {
      await drain();
      const target = await endpoint(['order.placed']);
      await storage.webhooks.publish(eventOf('order.placed'));
      const now = Date.now() + 1;
      const [first] = await storage.webhooks.claimDue(now, 10, 30_000);
      assert.ok(first !== undefined);
      assert.deepEqual(first.secrets, [target.secret]);
      assert.deepEqual(await storage.webhooks.claimDue(now + 29_000, 10, 30_000), []);
      const [again] = await storage.webhooks.claimDue(now + 30_000, 10, 30_000);
      assert.equal(again?.id, first.id, 'its instance died: the lease ran out, and another claims it');

      await storage.webhooks.recordAttempts([failedAttempt(first.id, 1, now, now + 5_000)]);
      assert.deepEqual(
        await storage.webhooks.claimDue(now + 4_000, 10, 30_000),
        [],
        'not due before its retry',
      );
      const [retry] = await storage.webhooks.claimDue(now + 5_000, 10, 30_000);
      assert.deepEqual([retry?.id, retry?.attempts, retry?.tries], [first.id, 1, 1]);
      const endpointNow = await storage.webhooks.getEndpoint(target.id);
      assert.equal(endpointNow?.failingSince, now);

      await storage.webhooks.recordAttempts([
        {
          attempt: {
            deliveryId: first.id,
            attempt: 2,
            at: now + 5_100,
            status: 204,
            latencyMs: 2,
            excerpt: '',
            error: null,
            nextAttemptAt: null,
          },
          state: 'delivered',
          nextAttemptAt: null,
        },
      ]);
      const delivered = await storage.webhooks.getDelivery(first.id);
      assert.deepEqual(
        [delivered?.state, delivered?.attempts, delivered?.lastStatus, delivered?.nextAttemptAt],
        ['delivered', 2, 204, null],
      );
      assert.equal(
        (await storage.webhooks.getEndpoint(target.id))?.failingSince,
        null,
        'a success ends its failing',
      );
      const attempts = await storage.webhooks.listAttempts(first.id);
      assert.deepEqual(
        attempts.map((attempt) => [attempt.attempt, attempt.status, attempt.excerpt, attempt.nextAttemptAt]),
        [
          [1, 500, 'boom', now + 5_000],
          [2, 204, '', null],
        ],
      );
      await storage.webhooks.deleteEndpoint(target.id, audited('webhook.deleted', target.id));
    });

    test('attempts recorded in one batch leave their endpoint as recording them one by one would', async () => {
      await drain();
      const target = await endpoint(['pet.created']);
      for (let event = 0; event < 4; event += 1) await storage.webhooks.publish(eventOf('pet.created'));
      const now = Date.now() + 1;
      const due = await storage.webhooks.claimDue(now, 10, 60_000);
      assert.equal(due.length, 4);
      const [a, b, c, d] = due.map((delivery) => delivery.id) as [number, number, number, number];
      const delivered = (id: number, at: number): AttemptOutcome => ({
        ...failedAttempt(id, 1, at, null),
        attempt: { ...failedAttempt(id, 1, at, null).attempt, status: 200, excerpt: 'ok' },
        state: 'delivered',
      });
      // Out of order in the batch: failed, then delivered, then failed twice.
      await storage.webhooks.recordAttempts([
        failedAttempt(d, 1, now + 40, now + 5_000),
        delivered(b, now + 20),
        failedAttempt(a, 1, now + 10, now + 5_000),
        failedAttempt(c, 1, now + 30, now + 5_000),
      ]);
      assert.equal((await storage.webhooks.getEndpoint(target.id))?.failingSince, now + 30);
      // The same attempt again, from an instance whose lease ran out mid-attempt: the first record stands,
      // and the others of its batch are kept.
      const secondTry = delivered(d, now + 60);
      await storage.webhooks.recordAttempts([
        failedAttempt(b, 1, now + 50, now + 5_000),
        { ...secondTry, attempt: { ...secondTry.attempt, attempt: 2 } },
      ]);
      const states = await Promise.all(due.map((delivery) => storage.webhooks.getDelivery(delivery.id)));
      assert.deepEqual(
        states.map((delivery) => [delivery?.state, delivery?.attempts]),
        [
          ['pending', 1],
          ['delivered', 1],
          ['pending', 1],
          ['delivered', 2],
        ],
      );
      assert.deepEqual(
        (await storage.webhooks.listAttempts(b)).map((attempt) => attempt.status),
        [200],
      );
      await storage.webhooks.deleteEndpoint(target.id, audited('webhook.deleted', target.id));
    });

    test('a 410 disables the endpoint, audited once; replay makes one or every failed delivery pending again', async () => {
      await drain();
      const target = await endpoint(['pet.created']);
      await storage.webhooks.publish(eventOf('pet.created'));
      await storage.webhooks.publish(eventOf('pet.created'));
      const now = Date.now() + 1;
      const [one, two] = await storage.webhooks.claimDue(now, 10, 30_000);
      assert.ok(one !== undefined && two !== undefined);
      await storage.webhooks.recordAttempts([failedAttempt(one.id, 1, now, null)]);
      await storage.webhooks.recordAttempts([
        {
          ...failedAttempt(two.id, 1, now, null),
          disable: { reason: 'gone', entry: audited('webhook.disabled', target.id) },
        },
      ]);
      const gone = await storage.webhooks.getEndpoint(target.id);
      assert.deepEqual([gone?.enabled, gone?.disabledReason], [false, 'gone']);

      assert.equal(await storage.webhooks.replay({ deliveryId: one.id }, now + 10), 1);
      const replayed = await storage.webhooks.getDelivery(one.id);
      // Pending on a fresh schedule, and parked: due once the endpoint is enabled.
      assert.deepEqual(
        [replayed?.state, replayed?.tries, replayed?.attempts, replayed?.nextAttemptAt],
        ['pending', 0, 1, null],
      );
      assert.deepEqual(
        await storage.webhooks.claimDue(now + 20, 10, 30_000),
        [],
        "a disabled endpoint's deliveries wait",
      );
      await storage.webhooks.updateEndpoint(
        target.id,
        { enabled: true, disabledReason: null, at: now },
        audited('webhook.updated', target.id),
      );
      const [claimed] = await storage.webhooks.claimDue(now + 20, 10, 30_000);
      assert.equal(claimed?.id, one.id);
      assert.equal(
        await storage.webhooks.replay({ deliveryId: one.id }, now + 30),
        0,
        'not while an attempt is under way',
      );

      assert.equal(await storage.webhooks.replay({ endpointId: target.id, failedSince: 0 }, now + 40), 1);
      assert.equal((await storage.webhooks.getDelivery(two.id))?.state, 'pending');
      const actions = (await storage.audit.list({ after: 0, target: target.id, limit: 10 })).map(
        (entry) => entry.action,
      );
      assert.deepEqual(actions, ['webhook.created', 'webhook.disabled', 'webhook.updated']);

      assert.equal(
        await storage.webhooks.deleteEndpoint(target.id, audited('webhook.deleted', target.id)),
        true,
      );
      assert.equal(await storage.webhooks.getDelivery(one.id), undefined, 'its deliveries went with it');
      await storage.webhooks.recordAttempts([failedAttempt(one.id, 2, now, null)]);
      assert.deepEqual(await storage.webhooks.listAttempts(one.id), []);
    });

    if (kind === 'postgres') {
      test('two instances claiming at once share the due deliveries, never one twice', async () => {
        await drain();
        const target = await endpoint(['category.created']);
        for (let i = 0; i < 200; i += 1) await storage.webhooks.publish(eventOf('category.created'));
        const other = await createStorage(database.config);
        try {
          const now = Date.now() + 1;
          const claims = await Promise.all(
            Array.from({ length: 8 }, (_, i) =>
              (i % 2 === 0 ? storage : other).webhooks.claimDue(now, 40, 30_000),
            ),
          );
          const ids = claims.flat().map((due) => due.id);
          assert.equal(new Set(ids).size, ids.length, 'no delivery claimed twice');
          assert.equal(ids.length, 200);
        } finally {
          await other.close();
          await storage.webhooks.deleteEndpoint(target.id, audited('webhook.deleted', target.id));
        }
      });
    }
  });
}
