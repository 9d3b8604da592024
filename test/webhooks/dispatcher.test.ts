import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { AuditEntry } from '../../src/audit/index.js';
import { FakeClock } from '../../src/clock/index.js';
import { createLogger } from '../../src/log/index.js';
import { createStorage, type Storage } from '../../src/storage/index.js';
import {
  createDispatcher,
  createSender,
  type Dispatcher,
  type EventType,
  newSigningSecret,
  RETRY_DELAYS_MS,
  type Sender,
  storedEvent,
  type WebhookEvent,
} from '../../src/webhooks/index.js';
import { FRESH_STORES } from '../support/fresh-storage.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const audited = (target: string): AuditEntry => ({
  at: new Date().toISOString(),
  actor: 'cli',
  action: 'webhook.created',
  target,
  details: {},
});

for (const [kind, fresh] of Object.entries(FRESH_STORES)) {
  describe(`the dispatcher, delivering from the outbox to a real receiver (${kind})`, () => {
    let database: Awaited<ReturnType<typeof fresh>>;
    let storage: Storage;
    let receiver: WebhookReceiver;
    let sender: Sender;
    let dispatcher: Dispatcher;
    // Retries fall due as the test moves this clock: nothing waits on time.
    const clock = new FakeClock(Date.now());
    let made = 0;
    const endpoint = async (events: EventType[], pathname = '/hooks') => {
      made += 1;
      const id = `we_${made}`;
      const secret = newSigningSecret();
      await storage.webhooks.createEndpoint(
        { id, url: `${receiver.url}${pathname}`, description: '', events, secret, createdAt: clock.now() },
        audited(id),
      );
      return { id, secret };
    };
    const remove = (id: string) =>
      storage.webhooks.deleteEndpoint(id, { ...audited(id), action: 'webhook.deleted' });

    before(async () => {
      database = await fresh();
      storage = await createStorage(database.config, { createDatabase: true });
      receiver = await startWebhookReceiver();
      sender = createSender({ policy: { allowPrivate: true } });
      dispatcher = createDispatcher({
        repository: storage.webhooks,
        sender,
        clock,
        logger: createLogger({ level: 'silent' }),
        concurrency: 8,
      });
    });
    after(async () => {
      await dispatcher.stop();
      sender.close();
      await receiver.close();
      await storage.close();
      await database.drop();
    });

    test('a create tells its subscriber: the event arrives signed, as the create committed it', async () => {
      const { id, secret } = await endpoint(['pet.created', 'category.created']);
      const created = await storage.create('createCategory', { name: 'Birds', description: '' }, undefined, {
        type: 'category.created',
        make: (category) => storedEvent('category.created', category, clock.now()),
      });
      assert.ok(created.ok);
      assert.equal(await dispatcher.runOnce(), 1);
      const received = receiver.received.at(-1);
      assert.ok(received !== undefined);
      const headers = {
        'webhook-id': String(received.headers['webhook-id']),
        'webhook-timestamp': String(received.headers['webhook-timestamp']),
        'webhook-signature': String(received.headers['webhook-signature']),
      };
      const event = new Webhook(secret).verify(received.body, headers) as WebhookEvent;
      assert.deepEqual(
        [event.type, event.apiVersion, event.data],
        ['category.created', 'v1', created.created],
      );
      assert.equal(headers['webhook-id'], event.id);
      const [delivery] = await storage.webhooks.listDeliveries(id, { limit: 5 });
      assert.deepEqual([delivery?.state, delivery?.attempts, delivery?.lastStatus], ['delivered', 1, 200]);
      assert.equal(await dispatcher.runOnce(), 0, 'nothing left due');
      await remove(id);
    });

    test('500, 500, 200: three attempts with one webhook-id, each in the delivery log, retried on the schedule', async () => {
      const { id } = await endpoint(['order.placed']);
      receiver.answer({ status: 500, body: 'down' }, { status: 500, body: 'still down' });
      const from = receiver.received.length;
      assert.equal(await storage.webhooks.publish(storedEvent('order.placed', { id: 1 }, clock.now())), 1);
      assert.equal(await dispatcher.runOnce(), 1);
      assert.equal(await dispatcher.runOnce(), 0, 'not due before its first retry');
      clock.advance((RETRY_DELAYS_MS[0] as number) * 1.1);
      assert.equal(await dispatcher.runOnce(), 1);
      clock.advance((RETRY_DELAYS_MS[1] as number) * 1.1);
      assert.equal(await dispatcher.runOnce(), 1);

      const sent = receiver.received.slice(from);
      assert.equal(sent.length, 3);
      assert.equal(new Set(sent.map((request) => request.headers['webhook-id'])).size, 1);
      const [delivery] = await storage.webhooks.listDeliveries(id, { limit: 5 });
      assert.ok(delivery !== undefined);
      assert.deepEqual([delivery.state, delivery.attempts], ['delivered', 3]);
      const attempts = await storage.webhooks.listAttempts(delivery.id);
      assert.deepEqual(
        attempts.map((attempt) => [
          attempt.attempt,
          attempt.status,
          attempt.excerpt,
          attempt.nextAttemptAt === null,
        ]),
        [
          [1, 500, 'down', false],
          [2, 500, 'still down', false],
          [3, 200, 'ok', true],
        ],
      );
      const [first, second] = attempts;
      assert.ok(first?.nextAttemptAt != null && second !== undefined);
      assert.ok(first.nextAttemptAt - first.at >= 4_500 && first.nextAttemptAt - first.at <= 5_500);

      // Replay sends it once more, with the same id:
      assert.equal(await storage.webhooks.replay({ deliveryId: delivery.id }, clock.now()), 1);
      assert.equal(await dispatcher.runOnce(), 1);
      assert.equal(receiver.received.at(-1)?.headers['webhook-id'], sent[0]?.headers['webhook-id']);
      assert.equal((await storage.webhooks.getDelivery(delivery.id))?.attempts, 4);
      await remove(id);
    });

    test('410 disables the endpoint, audited, and the operator hears of it on another endpoint', async () => {
      const gone = await endpoint(['key.created'], '/gone');
      const watcher = await endpoint(['webhook.endpoint_disabled'], '/watch');
      receiver.answer({ status: 410, body: 'gone' });
      await storage.webhooks.publish(storedEvent('key.created', { id: 'key_1' }, clock.now()));
      assert.equal(await dispatcher.runOnce(), 1);
      const disabled = await storage.webhooks.getEndpoint(gone.id);
      assert.deepEqual([disabled?.enabled, disabled?.disabledReason], [false, 'gone']);
      const audit = await storage.audit.list({ after: 0, target: gone.id, limit: 10 });
      assert.deepEqual(
        audit.map((entry) => [entry.action, entry.actor, entry.details.reason]),
        [
          ['webhook.created', 'cli', undefined],
          ['webhook.disabled', 'webhooks', 'gone'],
        ],
      );

      assert.equal(await dispatcher.runOnce(), 1);
      const told = receiver.received.at(-1);
      assert.equal(told?.path, '/watch');
      const event = JSON.parse(told?.body ?? '{}') as WebhookEvent;
      // Its id and host only: a URL's path or query may be a capability, and the watcher may be a third party's.
      assert.deepEqual(
        [event.type, event.data],
        ['webhook.endpoint_disabled', { id: gone.id, reason: 'gone', host: new URL(receiver.url).host }],
      );
      assert.equal(audit[1]?.details.url, `${new URL(receiver.url).origin}/***`, 'the audit keeps it masked');
      await remove(gone.id);
      await remove(watcher.id);
    });

    test('an endpoint failing for five days is disabled at its next failure, and attempted no more', async () => {
      const failing = await endpoint(['pet.created'], '/failing');
      receiver.answer(...Array.from({ length: 20 }, () => ({ status: 503 })));
      await storage.webhooks.publish(storedEvent('pet.created', { id: 9 }, clock.now()));
      let attempts = 0;
      for (; attempts < 20; attempts += 1) {
        if ((await dispatcher.runOnce()) === 0) break;
        clock.advance(23 * 3_600_000);
      }
      const [delivery] = await storage.webhooks.listDeliveries(failing.id, { limit: 5 });
      const disabled = await storage.webhooks.getEndpoint(failing.id);
      // 23 h apart here, longer than any delay: attempt 7 is the first past five days of failing, and the last.
      assert.deepEqual([disabled?.enabled, disabled?.disabledReason], [false, 'failing']);
      assert.equal(delivery?.attempts, 7);
      assert.equal(attempts, 7, 'no attempt once it was disabled');
      await remove(failing.id);
    });
  });
}
