import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { shownText, textOf } from '../support/browser.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { type ConsoleHarness, inspectPage, startConsoleAt } from './harness.js';

describe('Project settings → Webhooks in the console', () => {
  let h: ConsoleHarness;
  let receiver: WebhookReceiver;
  let url = '';
  let secret = '';

  before(async () => {
    receiver = await startWebhookReceiver();
    url = `${receiver.url}/hooks/petstore`;
    // The receiver is on 127.0.0.1, which only this setting allows.
    h = await startConsoleAt('/console/webhooks', undefined, { env: { WEBHOOKS_ALLOW_PRIVATE: 'true' } });
  });
  after(async () => {
    await h?.close();
    await receiver?.close();
  });

  const heading = (name: string) => h.page.getByRole('heading', { level: 1, name }).waitFor();
  const row = (text: string) => h.page.locator('table.deliveries tbody tr', { hasText: text }).first();

  test('Add endpoint: a URL and event types picked by name; the secret is shown once', async () => {
    await h.page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await h.page.getByText('No endpoints yet.').waitFor();
    await h.page.getByLabel('Endpoint URL').fill('http://');
    await h.page.getByRole('checkbox', { name: 'order.placed' }).uncheck();
    assert.ok(
      await h.page.getByRole('button', { name: 'Add endpoint' }).isDisabled(),
      'an endpoint needs an event type',
    );
    await h.page.getByRole('checkbox', { name: 'order.placed' }).check();
    await h.page.getByRole('checkbox', { name: 'key.banned' }).check();
    await h.page.getByLabel('Description (optional)').fill('Fulfilment');
    await h.page.getByLabel('Endpoint URL').fill(url);
    await inspectPage(h.page, 'webhooks-add');
    await h.page.getByRole('button', { name: 'Add endpoint' }).click();

    await heading(url);
    assert.match(new URL(h.page.url()).pathname, /^\/console\/webhooks\/we_[0-9a-f]{20}$/);
    await h.page.getByText('It will not be shown again').waitFor();
    secret = (await shownText(h.page, '[data-testid="new-key"]')).trim();
    assert.match(secret, /^whsec_[A-Za-z0-9+/=]+$/);
    await h.page.getByRole('button', { name: 'Copy the signing secret' }).click();
    assert.equal(await h.page.evaluate('navigator.clipboard.readText()'), secret);
    assert.match(await shownText(h.page, '.facts'), /order\.placed, key\.banned|key\.banned, order\.placed/);
    await h.page.locator('.title-row .badge', { hasText: 'Healthy' }).waitFor();
    await inspectPage(h.page, 'webhook-added');

    await h.page.getByRole('button', { name: 'Done' }).click();
    assert.ok(!(await h.page.content()).includes(secret), 'the secret is gone from the page');
    await h.page.reload();
    await heading(url);
    assert.ok(!(await h.page.content()).includes(secret), 'and a reload does not bring it back');
  });

  test('Send test event: its delivery in the log, attempt by attempt; Replay sends it again, same id', async () => {
    receiver.answer({ status: 500, body: 'receiver down for maintenance' });
    await h.page.getByLabel('Event type').selectOption('order.placed');
    await h.page.getByRole('button', { name: 'Send test event' }).click();
    const status = h.page.getByText(/^Test event \S+ \(order\.placed\) is on its way\.$/);
    await status.waitFor();
    const sent = await textOf(status);
    const eventId = /Test event (\S+) \(order\.placed\)/.exec(sent)?.[1];
    assert.ok(eventId, sent);
    await receiver.arrived(1);

    // The log asks again every 5 seconds: the failed first attempt shows, and the next retry with it.
    await row(eventId)
      .locator('.badge', { hasText: /Retrying|Delivered/ })
      .waitFor({ timeout: 15_000 });
    await h.page.getByRole('button', { name: `Attempts of ${eventId}` }).click();
    const attempts = h.page.locator('table.attempts').first();
    await attempts.locator('tbody tr').first().waitFor();
    assert.match(
      await textOf(attempts.locator('tbody tr').first()),
      /^1\s[\s\S]*500[\s\S]*ms[\s\S]*receiver down for maintenance/,
    );
    await inspectPage(h.page, 'webhook-deliveries');

    const before = receiver.received.length;
    await h.page.getByRole('button', { name: `Replay ${eventId}` }).click();
    await h.page.getByText(`order.placed ${eventId} is due again, with the same webhook-id.`).waitFor();
    await receiver.arrived(before + 1);
    await row(eventId).locator('.badge', { hasText: 'Delivered' }).waitFor({ timeout: 15_000 });

    // Every attempt, the replayed one too, carries the one id and verifies with the secret shown once.
    const verifier = new Webhook(secret);
    for (const request of receiver.received) {
      assert.equal(request.headers['webhook-id'], eventId);
      const event = verifier.verify(request.body, request.headers as Record<string, string>) as {
        type: string;
      };
      assert.equal(event.type, 'order.placed');
    }
    const log = await textOf(attempts);
    assert.match(log, /200/, 'the attempt that succeeded is in the log');
  });

  test('Disable and Enable from the menu; the list shows each endpoint’s health', async () => {
    await h.page.getByRole('button', { name: `Actions for ${url}` }).click();
    await h.page.getByRole('menuitem', { name: 'Disable' }).click();
    await h.page.locator('.title-row .badge', { hasText: 'Disabled' }).waitFor();
    await h.page.getByText('Disabled by an operator').waitFor();
    assert.ok(await h.page.getByRole('button', { name: 'Send test event' }).isDisabled());

    await h.page.getByRole('link', { name: 'Webhooks', exact: true }).first().click();
    const listed = h.page.locator('tr', { hasText: url });
    await listed.locator('.badge', { hasText: 'Disabled' }).waitFor();
    assert.match(await textOf(listed), /Fulfilment[\s\S]*2 types/);
    await inspectPage(h.page, 'webhooks-list');

    await h.page.getByRole('link', { name: url }).click();
    await h.page.getByRole('button', { name: `Actions for ${url}` }).click();
    await h.page.getByRole('menuitem', { name: 'Enable' }).click();
    await h.page.locator('.title-row .badge', { hasText: 'Healthy' }).waitFor();
  });

  test('Replay failed since… sends every failed delivery again; none failed here', async () => {
    await h.page.getByLabel('Replay failed deliveries made since (UTC)').fill('2026-01-01T00:00');
    await h.page.getByRole('button', { name: 'Replay failed' }).click();
    await h.page.getByText('0 failed deliveries are due again.').waitFor();
  });

  test('Rotate secret: a new one shown once, the old one signing beside it for a day', async () => {
    await h.page.getByRole('button', { name: `Actions for ${url}` }).click();
    await h.page.getByRole('menuitem', { name: 'Rotate secret' }).click();
    await h.page.getByRole('button', { name: 'Rotate secret' }).click();
    await h.page.getByText('It will not be shown again').waitFor();
    const rotated = (await shownText(h.page, '[data-testid="new-key"]')).trim();
    assert.match(rotated, /^whsec_/);
    assert.notEqual(rotated, secret);
    await h.page
      .locator('.facts', { hasText: /Previous secret\s*Signs beside the current one until/ })
      .waitFor();
  });

  test('Remove, confirmed, leads back to the list without it', async () => {
    await h.page.getByRole('button', { name: `Actions for ${url}` }).click();
    await h.page.getByRole('menuitem', { name: 'Remove' }).click();
    await h.page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await h.page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await h.page.getByText(`The endpoint ${url} is removed`).waitFor();
    await h.page.getByText('No endpoints yet.').waitFor();
    assert.deepEqual(h.failures, []);
  });
});
