import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { shownText, textOf } from '../support/browser.js';
import { type ConsoleHarness, signIn, startConsole } from './harness.js';

const KEY = /ps_(live|test)_[0-9A-Za-z]{32}/;

describe('API keys in the console', () => {
  let h: ConsoleHarness;
  let created = '';

  before(async () => {
    h = await startConsole();
    await h.open('/console/keys');
    await signIn(h.page, h.token);
  });
  after(async () => {
    await h?.close();
  });

  const heading = (name: string) => h.page.getByRole('heading', { level: 1, name }).waitFor();
  /** A request to the API with a key, after every instance has seen the latest keys. */
  const statusWith = async (key: string) => {
    await h.server.deps.authenticator.refresh();
    return (await h.server.call('/v1/categories', { headers: { authorization: `Bearer ${key}` } })).status;
  };
  const shownKey = async () => (await shownText(h.page, '[data-testid="new-key"]')).trim();

  test('Create shows the key once, with Copy and "It will not be shown again"', async () => {
    await h.page.getByRole('button', { name: 'Create key' }).click();
    await h.page.getByLabel('Name').fill('Checkout');
    await h.page.getByLabel('Plan').selectOption('enterprise');
    await h.page.getByLabel('Requests per minute').fill('120');
    await h.page.getByLabel('Requests per day').fill('50000');
    await h.page.getByLabel('Plan').selectOption('business');
    assert.equal(await h.page.getByLabel('Requests per minute').count(), 0, 'limits are for enterprise only');
    await h.page.getByRole('checkbox', { name: /Write orders/ }).uncheck();
    await h.page.getByRole('button', { name: 'Create key' }).click();

    await h.page.getByText('It will not be shown again').waitFor();
    created = await shownKey();
    assert.match(created, KEY);
    await h.page.getByRole('button', { name: 'Copy the key' }).click();
    assert.equal(await h.page.evaluate('navigator.clipboard.readText()'), created);
    assert.equal(await statusWith(created), 200);

    const row = h.page.locator('tr', { hasText: 'Checkout' });
    assert.match(
      await textOf(row),
      /business[\s\S]*categories:read, categories:write, pets:read, pets:write, orders:read/,
    );
    assert.match(await textOf(row), /Active/);
    await h.page.getByRole('button', { name: 'Done' }).click();
    assert.ok(!(await h.page.content()).includes(created), 'the key is gone from the page');
  });

  test('the key page: details, edit, and its history', async () => {
    await h.page.getByRole('link', { name: 'Checkout' }).click();
    await heading('Checkout');
    await h.page.getByRole('button', { name: 'Edit' }).click();
    await h.page.getByLabel('Name').fill('Checkout v2');
    await h.page.getByRole('button', { name: 'Save' }).click();
    await heading('Checkout v2');
    const history = h.page.locator('section:has(#history-heading) tbody');
    await history.locator('tr', { hasText: 'key.updated' }).waitFor();
    assert.match(await textOf(history), /key\.created/);
  });

  test('Rotate with a grace period shows the new key once; the old one keeps working meanwhile', async () => {
    await h.page.getByRole('button', { name: 'Rotate' }).click();
    await h.page.getByLabel('Grace period').fill('2');
    await h.page.getByLabel('Unit').selectOption('hours');
    await h.page.getByRole('button', { name: 'Rotate key' }).click();
    await h.page.getByText('It will not be shown again').waitFor();
    const rotated = await shownKey();
    assert.match(rotated, KEY);
    assert.notEqual(rotated, created);
    assert.equal(await statusWith(rotated), 200);
    assert.equal(await statusWith(created), 200, 'within the grace period');
    await h.page.locator('section:has(#history-heading) tr', { hasText: 'key.rotated' }).waitFor();
    assert.equal(
      await h.page.getByRole('button', { name: 'Rotate', exact: true }).count(),
      0,
      'rotated once',
    );

    await h.page.getByRole('link', { name: 'Open the new key’s page' }).click();
    await heading('Checkout v2');
    created = rotated;
  });

  test('Revoke asks first, then the key is refused', async () => {
    await h.page.getByRole('button', { name: 'Revoke' }).click();
    const dialog = h.page.getByRole('dialog', { name: 'Revoke Checkout v2?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await statusWith(created), 200, 'Cancel changes nothing');

    await h.page.getByRole('button', { name: 'Revoke' }).click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await h.page.locator('.title-row .badge', { hasText: 'Revoked' }).waitFor();
    assert.equal(await statusWith(created), 401);
  });

  test('Unban lifts the ban of a key banned for sending on after its 429 answers', async () => {
    const { key } = await h.server.createKey({
      plan: 'enterprise',
      name: 'Scraper',
      limits: { perMinute: 2, perDay: 1000 },
    });
    // A key that keeps sending after 429 is banned (test/ratelimit): a bounded loop until it is.
    let code: string | undefined;
    for (let sent = 0; sent < 200 && code !== 'api_key_banned'; sent += 1) {
      const answer = await h.server.call('/v1/categories', { headers: { authorization: `Bearer ${key}` } });
      code = (answer.body as { code?: string } | undefined)?.code;
    }
    assert.equal(code, 'api_key_banned');
    await h.open('/console/keys');
    await h.page
      .locator('tr', { hasText: 'Scraper' })
      .locator('.badge', { hasText: 'Banned' })
      .first()
      .waitFor();
    await h.page.getByRole('link', { name: 'Scraper' }).click();
    await heading('Scraper');
    await h.page.getByRole('button', { name: 'Unban' }).click();
    await h.page.locator('.title-row .badge', { hasText: 'Active' }).waitFor();
    assert.equal(await h.page.getByRole('button', { name: 'Unban' }).count(), 0);
    // The ban is lifted; the minute's window keeps its count, so the answer may still be a plain 429.
    await h.server.deps.authenticator.refresh();
    const answer = await h.server.call('/v1/categories', { headers: { authorization: `Bearer ${key}` } });
    assert.notEqual((answer.body as { code?: string } | undefined)?.code, 'api_key_banned');
  });

  test('nothing failed', () => {
    assert.deepEqual(h.failures, []);
  });
});
