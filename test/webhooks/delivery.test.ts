import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import {
  createSender,
  EXCERPT_BYTES,
  newSigningSecret,
  type Sender,
  signedMessage,
  type WebhookEvent,
} from '../../src/webhooks/index.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const event = (id = 'evt_1'): WebhookEvent => ({
  id,
  type: 'order.placed',
  createdAt: '2026-11-28T12:00:00.000Z',
  apiVersion: 'v1',
  data: { id: 7, petId: 3, quantity: 1, status: 'placed', createdAt: '2026-11-28T12:00:00.000Z' },
});

const headersOf = (received: WebhookReceiver['received'][number]) =>
  Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
      name,
      String(received.headers[name]),
    ]),
  );

describe('a webhook attempt, sent to a real receiver and checked with the reference library', () => {
  let receiver: WebhookReceiver;
  let sender: Sender;
  before(async () => {
    receiver = await startWebhookReceiver();
    sender = createSender({ policy: { allowPrivate: true } });
  });
  after(async () => {
    sender.close();
    await receiver.close();
  });

  const send = async (secrets: string[], at = new Date(), path = '/hooks') => {
    const { body, headers } = signedMessage(event(), secrets, at);
    const result = await sender.send(new URL(`${receiver.url}${path}`), headers, body);
    const received = receiver.received.at(-1);
    assert.ok(received !== undefined, 'the receiver got the attempt');
    return { result, received };
  };

  test('arrives as JSON with headers that standardwebhooks verifies; a tampered body or an old timestamp fails', async () => {
    const secret = newSigningSecret();
    const { result, received } = await send([secret]);
    assert.equal(result.outcome, 'delivered');
    assert.equal(result.status, 200);
    assert.equal(received.headers['content-type'], 'application/json');
    const verifier = new Webhook(secret);
    assert.deepEqual(verifier.verify(received.body, headersOf(received)), event());

    const tampered = received.body.replace('"quantity":1', '"quantity":9');
    assert.notEqual(tampered, received.body);
    assert.throws(() => verifier.verify(tampered, headersOf(received)), WebhookVerificationError);
    assert.throws(() => new Webhook(newSigningSecret()).verify(received.body, headersOf(received)));

    const old = await send([secret], new Date(Date.now() - 6 * 60_000));
    assert.throws(() => verifier.verify(old.received.body, headersOf(old.received)), /too old/);
  });

  test('during a rotation both secrets verify the same attempt; after it only the new one', async () => {
    const [previous, next] = [newSigningSecret(), newSigningSecret()];
    const overlap = await send([next, previous]);
    assert.equal(String(overlap.received.headers['webhook-signature']).split(' ').length, 2);
    for (const secret of [previous, next])
      new Webhook(secret).verify(overlap.received.body, headersOf(overlap.received));

    const afterwards = await send([next]);
    new Webhook(next).verify(afterwards.received.body, headersOf(afterwards.received));
    assert.throws(() =>
      new Webhook(previous).verify(afterwards.received.body, headersOf(afterwards.received)),
    );
  });

  test('every attempt of an event carries its id, and a timestamp of its own', async () => {
    const secret = newSigningSecret();
    const first = await send([secret], new Date(Date.now() - 60_000));
    const second = await send([secret]);
    assert.equal(first.received.headers['webhook-id'], 'evt_1');
    assert.equal(second.received.headers['webhook-id'], 'evt_1');
    assert.notEqual(
      first.received.headers['webhook-timestamp'],
      second.received.headers['webhook-timestamp'],
    );
  });

  test('2xx is delivered with the first KiB of the answer, 410 is gone, 500 and a redirect are failures', async () => {
    const secret = newSigningSecret();
    receiver.answer({ status: 202, body: `é${'x'.repeat(5_000)}` });
    const accepted = await send([secret]);
    assert.equal(accepted.result.outcome, 'delivered');
    assert.equal(accepted.result.status, 202);
    assert.equal(Buffer.byteLength(accepted.result.excerpt), EXCERPT_BYTES);
    assert.ok(accepted.result.excerpt.startsWith('éx'));

    receiver.answer({ status: 410, body: 'gone' });
    assert.deepEqual((await send([secret])).result.outcome, 'gone');

    receiver.answer({ status: 500, body: 'boom' });
    const failed = (await send([secret])).result;
    assert.deepEqual([failed.outcome, failed.status, failed.excerpt], ['failed', 500, 'boom']);

    const before = receiver.received.length;
    receiver.answer({ status: 302, headers: { location: `${receiver.url}/elsewhere` } });
    const redirected = await send([secret]);
    assert.deepEqual([redirected.result.outcome, redirected.result.status], ['failed', 302]);
    assert.equal(receiver.received.length, before + 1, 'the redirect was not followed');
    assert.equal(redirected.received.path, '/hooks');
  });

  test("an answer that echoes the URL's credentials keeps neither in its excerpt", async () => {
    const basic = Buffer.from('hook:s3cr3t-pass').toString('base64');
    receiver.answer({ status: 400, body: `you sent Authorization: Basic ${basic} (password s3cr3t-pass)` });
    const { body, headers } = signedMessage(event(), [newSigningSecret()], new Date());
    const target = new URL(receiver.url.replace('http://', 'http://hook:s3cr3t-pass@'));
    const result = await sender.send(target, headers, body);
    assert.equal(
      receiver.received.at(-1)?.headers.authorization,
      `Basic ${basic}`,
      'the credentials were sent',
    );
    assert.equal(result.excerpt, 'you sent Authorization: Basic [redacted] (password [redacted])');
  });

  test('an echoed password is redacted JSON-escaped, URL-encoded and HTML-escaped too, and where the 1 KiB cut splits it', async () => {
    const password = 'p/a"s s&w<rd';
    const target = new URL(receiver.url.replace('http://', `http://hook:${encodeURIComponent(password)}@`));
    const forms = [
      JSON.stringify({ password }),
      JSON.stringify({ password }).replaceAll('/', '\\/'),
      `password=${encodeURIComponent(password)}`,
      `password=${encodeURIComponent(password).replaceAll('%20', '+')}`,
      `<b>${password.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('"', '&quot;')}</b>`,
    ];
    const { body, headers } = signedMessage(event(), [newSigningSecret()], new Date());
    for (const form of forms) {
      receiver.answer({ status: 400, body: form });
      const { excerpt } = await sender.send(target, headers, body);
      assert.match(excerpt, /\[redacted\]/, form);
      for (const piece of ['p/a', 's s', 'w<rd', 'w&lt;rd', 'p\\/a', 's%20s', 's+s&w', '%26w']) {
        assert.ok(!excerpt.includes(piece), `${form} shown as ${excerpt}`);
      }
    }
    // The cut at 1 KiB falls inside the echoed password: it is redacted whole all the same.
    for (const offset of [1, 4, password.length - 1]) {
      receiver.answer({ status: 400, body: `${'x'.repeat(EXCERPT_BYTES - offset)}${password} and more` });
      const { excerpt } = await sender.send(target, headers, body);
      assert.ok(excerpt.startsWith(`${'x'.repeat(EXCERPT_BYTES - offset)}[redacted]`), excerpt.slice(-20));
      assert.ok(!excerpt.includes('p/a') && !excerpt.endsWith('[reda'), excerpt.slice(-20));
    }
  });

  test('a receiver that does not answer in time, or is not there, is a failure with its reason', async () => {
    const quick = createSender({ policy: { allowPrivate: true }, timeoutMs: 300 });
    try {
      receiver.answer('hold');
      const { body, headers } = signedMessage(event(), [newSigningSecret()], new Date());
      const held = await quick.send(new URL(`${receiver.url}/slow`), headers, body);
      assert.deepEqual(
        [held.outcome, held.status, held.error],
        ['failed', undefined, 'no answer within 0.3 s'],
      );

      const closed = await startWebhookReceiver();
      await closed.close();
      const refused = await quick.send(new URL(`${closed.url}/`), headers, body);
      assert.deepEqual([refused.outcome, refused.error], ['failed', 'could not send: ECONNREFUSED']);
    } finally {
      quick.close();
    }
  });
});
