import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { shownText, textOf } from '../support/browser.js';
import { type ConsoleHarness, focused, inspectPage, startConsoleAt } from './harness.js';

const KEY = /ps_(live|test)_[0-9A-Za-z]{32}/;

describe('API keys in the console', () => {
  let h: ConsoleHarness;
  let created = '';

  before(async () => {
    h = await startConsoleAt('/console/keys');
  });
  after(() => h?.close());

  const heading = (name: string) => h.page.getByRole('heading', { level: 1, name }).waitFor();
  /** A request to the API with a key, after every instance has seen the latest keys. */
  const statusWith = async (key: string) => {
    await h.server.deps.authenticator.refresh();
    return (await h.server.call('/v1/categories', { headers: { authorization: `Bearer ${key}` } })).status;
  };
  const shownKey = async () => (await shownText(h.page, '[data-testid="new-key"]')).trim();

  test('Create shows the key once, with Copy and "It will not be shown again"', async () => {
    await h.page.getByRole('button', { name: 'Create key' }).click();
    // The form opens with the focus in its first field; Cancel gives it back to the button.
    await focused(h.page.getByLabel('Name'));
    await h.page.getByRole('button', { name: 'Cancel' }).click();
    await focused(h.page.getByRole('button', { name: 'Create key' }));
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
    assert.match(await textOf(row), /business[\s\S]*All but orders:write/);
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

  test('Rotate opens with the focus on its grace period, then leads to the new key, shown once', async () => {
    const oldId = new URL(h.page.url()).pathname.split('/').at(-1) ?? '';
    await h.page.getByRole('button', { name: 'Rotate' }).click();
    await focused(h.page.getByLabel('Grace period'));
    await h.page.getByLabel('Grace period').fill('2');
    await h.page.getByLabel('Unit').selectOption('hours');
    await h.page.getByRole('button', { name: 'Rotate key' }).click();
    await h.page.getByText('It will not be shown again').waitFor();
    const rotated = await shownKey();
    assert.match(rotated, KEY);
    assert.notEqual(rotated, created);
    assert.equal(await statusWith(rotated), 200);
    assert.equal(await statusWith(created), 200, 'within the grace period');

    // The page is the new key's: its own id in the address, what it replaces and until when that one works.
    const newId = new URL(h.page.url()).pathname.split('/').at(-1) ?? '';
    assert.match(newId, /^key_/);
    assert.notEqual(newId, oldId);
    await heading('Checkout v2');
    const old = (await h.server.admin(h.token, `/keys/${oldId}`)).body as {
      replacedBy: string;
      expiresAt: string;
    };
    assert.equal(old.replacedBy, newId);
    const graceEnd = `${old.expiresAt.slice(0, 16).replace('T', ' ')} UTC`;
    assert.match(
      await textOf(h.page.locator('main')),
      new RegExp(`replaces ${oldId}, which keeps working until ${graceEnd}`),
    );
    assert.equal(
      await h.page.getByRole('button', { name: 'Rotate', exact: true }).count(),
      1,
      'the new key may be rotated',
    );
    await inspectPage(h.page, 'key-rotated');
    await h.page.getByRole('button', { name: 'Done' }).click();
    assert.ok(!(await h.page.content()).includes(rotated), 'the key is gone from the page');

    // The old key's page says it was rotated, to which key, and until when it works.
    await h.open(`/console/keys/${oldId}`);
    await heading('Checkout v2');
    await h.page.locator('section:has(#history-heading) tr', { hasText: 'key.rotated' }).waitFor();
    assert.match(
      await textOf(h.page.locator('.facts')),
      new RegExp(`Rotated → ${newId}, works until ${graceEnd}`),
    );
    assert.equal(
      await h.page.getByRole('button', { name: 'Rotate', exact: true }).count(),
      0,
      'rotated once',
    );

    // In the list, the two keys of one name are told apart by their prefixes and their rotation.
    await h.open('/console/keys');
    const keys = (await h.server.admin(h.token, '/keys')).body as { id: string; prefix: string }[];
    const prefixOf = (id: string) => keys.find((key) => key.id === id)?.prefix ?? '';
    assert.notEqual(prefixOf(oldId), prefixOf(newId));
    const oldRow = h.page.locator('tr', { hasText: oldId }).filter({ hasText: 'Rotated' });
    await oldRow.waitFor();
    assert.match(
      await textOf(oldRow),
      new RegExp(`${prefixOf(oldId)}…[\\s\\S]*Rotated → ${newId}, works until ${graceEnd}`),
    );
    const newRow = h.page.locator('tbody tr').filter({ has: h.page.locator(`code:text-is("${newId}")`) });
    assert.match(await textOf(newRow), new RegExp(`${prefixOf(newId)}…[\\s\\S]*Replaces ${oldId}`));
    await inspectPage(h.page, 'keys-rotated');

    await h.page.getByRole('link', { name: newId }).first().click();
    await heading('Checkout v2');
    assert.equal(new URL(h.page.url()).pathname, `/console/keys/${newId}`);
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

  test('Revoke names the keys rotated from the key, which a thief may hold, and revokes them with it', async () => {
    const leaked = await h.server.createKey({ plan: 'free', name: 'Leaked' });
    const rotateItself = async (key: string) => {
      const rotated = await h.server.call('/v1/key/rotate', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ gracePeriodSeconds: 86_400 }),
      });
      h.server.issuedKeys.push((rotated.body as { key: string }).key);
      return rotated.body as { id: string; key: string };
    };
    const second = await rotateItself(leaked.key);
    const third = await rotateItself(second.key);
    await h.open(`/console/keys/${leaked.id}`);
    await heading('Leaked');
    await h.page.getByRole('button', { name: 'Revoke' }).click();
    const dialog = h.page.getByRole('dialog', { name: 'Revoke Leaked and 2 more?' });
    await dialog.getByText(second.id).waitFor();
    assert.match(
      await textOf(dialog),
      new RegExp(`${second.id}[\\s\\S]*${third.id}`),
      'in the order they were made',
    );
    await inspectPage(h.page, 'revoke-with-successors');
    await dialog.getByRole('button', { name: 'Revoke 3 keys' }).click();
    await h.page.locator('.title-row .badge', { hasText: 'Revoked' }).waitFor();
    for (const key of [leaked.key, second.key, third.key]) assert.equal(await statusWith(key), 401);
  });

  test('a key path that is no key id is the 404 page, which does not repeat it', async () => {
    await h.open(`/console/keys/${encodeURIComponent('<b>nope</b> key_x')}`);
    await heading('Not found');
    const shown = await shownText(h.page, 'main');
    assert.match(shown, /This page does not exist/);
    assert.doesNotMatch(shown, /nope/);
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
