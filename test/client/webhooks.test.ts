import assert from 'node:assert/strict';
import { test } from 'node:test';
import { verifyWebhook, WebhookVerificationError } from '@petstore-api/client';
import { Webhook } from 'standardwebhooks';

const SECRET = `whsec_${Buffer.alloc(24, 1).toString('base64')}`;
const BODY = JSON.stringify({
  id: 'evt_1',
  type: 'order.placed',
  createdAt: '2026-11-29T00:00:00.000Z',
  apiVersion: 'v1',
  data: { id: 7, petId: 3, quantity: 1, status: 'placed' },
});

/** The headers of a delivery signed now with `secret`, as the reference library signs them. */
function signed(secret = SECRET, body = BODY) {
  const at = new Date();
  return {
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign('evt_1', at, body),
  };
}

test('verifyWebhook returns the event, typed by its type, from Node headers, fetch Headers or any case', () => {
  const headers = signed();
  const fromNode = verifyWebhook(Buffer.from(BODY), headers, SECRET);
  assert.equal(fromNode.type, 'order.placed');
  if (fromNode.type === 'order.placed') assert.equal(fromNode.data.petId, 3);
  assert.deepEqual(verifyWebhook(BODY, new Headers(headers), SECRET), fromNode);
  const capitalised = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.replace(/(^|-)\w/g, (c) => c.toUpperCase()), value]),
  );
  assert.deepEqual(verifyWebhook(BODY, capitalised, SECRET), fromNode);
});

test('verifyWebhook refuses another secret, a changed body, an old timestamp and a missing header', () => {
  const other = `whsec_${Buffer.alloc(24, 2).toString('base64')}`;
  assert.throws(() => verifyWebhook(BODY, signed(other), SECRET), WebhookVerificationError);
  assert.throws(
    () => verifyWebhook(BODY.replace('"v1"', '"v2"'), signed(), SECRET),
    WebhookVerificationError,
  );
  const old = { ...signed(), 'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600) };
  assert.throws(() => verifyWebhook(BODY, old, SECRET), WebhookVerificationError);
  const { 'webhook-signature': _, ...unsigned } = signed();
  assert.throws(() => verifyWebhook(BODY, unsigned, SECRET), {
    name: 'WebhookVerificationError',
    message: 'The delivery has no webhook-signature header',
  });
});
