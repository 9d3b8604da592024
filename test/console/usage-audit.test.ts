import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { textOf } from '../support/browser.js';
import { type ConsoleHarness, signIn, startConsole } from './harness.js';

/** Clears the filters, and waits for the form of the unfiltered URL (a new URL makes a new form). */
async function clearFilters(h: ConsoleHarness): Promise<void> {
  await h.page.getByRole('link', { name: 'Clear' }).click();
  await h.page.waitForFunction(
    "[...document.querySelectorAll('form input')].every((input) => input.value === '')",
  );
}

/** The numbers of a chart's table (its footer: the totals), as screen readers read them. */
async function totals(h: ConsoleHarness, caption: string): Promise<string[]> {
  const cells = h.page.locator(`table:has(caption:text-is("${caption}")) tfoot td`);
  return (await cells.allTextContents()).map((text) => text.trim());
}

describe('usage and the audit log in the console', () => {
  let h: ConsoleHarness;
  let keyId = '';

  before(async () => {
    h = await startConsole();
    const made = await h.server.createKey({ plan: 'free', name: 'Counted' });
    keyId = made.id;
    const auth = { authorization: `Bearer ${made.key}` };
    for (let sent = 0; sent < 3; sent += 1) await h.server.call('/v1/categories', { headers: auth });
    for (let sent = 0; sent < 2; sent += 1) await h.server.call('/v1/pets/999999999', { headers: auth });
    await h.server.deps.recorder.flush();
    await h.open('/console/usage');
    await signIn(h.page, h.token);
  });
  after(async () => {
    await h?.close();
  });

  test('the charts of all keys draw the counts sent, and their tables hold them', async () => {
    await h.page.getByRole('heading', { name: 'Requests per hour, last 48 hours' }).waitFor();
    assert.equal(await h.page.locator('.chart-plot canvas').count(), 2, 'two uPlot charts');
    for (const caption of ['Requests per hour, last 48 hours', 'Requests per day, last 90 days']) {
      assert.deepEqual(await totals(h, caption), ['3', '2', '0', '0'], caption);
      // Collapsed on screen, yet a table in the accessibility tree, for screen readers.
      const table = h.page.getByRole('table', { name: caption });
      assert.equal(await table.count(), 1, `${caption}: a table for screen readers`);
      const details = h.page.locator('details', { has: table });
      const summary = await details.locator('summary').boundingBox();
      assert.equal((await details.boundingBox())?.height, summary?.height, `${caption}: collapsed on screen`);
    }
  });

  test('the most used keys today, with their share of the day limit', async () => {
    const row = h.page.locator('section:has(#top-heading) tr', { hasText: 'Counted' });
    assert.match(await textOf(row), /free\s+5\s/);
  });

  test("a key's page has its own charts", async () => {
    await h.open(`/console/keys/${keyId}`);
    await h.page.getByRole('heading', { name: 'Requests per hour, last 48 hours' }).waitFor();
    assert.deepEqual(await totals(h, 'Requests per hour, last 48 hours'), ['3', '2', '0', '0']);
  });

  test('the audit log, newest first, filtered by target, actor and time, paged with Older', async () => {
    // 55 keys made through the admin API: more than one page of 50.
    const ids: string[] = [];
    for (let made = 0; made < 55; made += 1) {
      const answer = await h.server.admin(h.token, '/keys', {
        method: 'POST',
        json: { plan: 'free', name: `bulk ${made}` },
      });
      ids.push((answer.body as { id: string }).id);
    }
    await h.open('/console/audit');
    const rows = h.page.locator('main tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 50);
    assert.match(await textOf(rows.first()), new RegExp(ids.at(-1) ?? ''), 'newest first');
    await h.page.getByRole('button', { name: 'Older' }).click();
    await rows.nth(50).waitFor();
    assert.ok((await rows.count()) > 55);

    await h.page.getByLabel('Target').fill(keyId);
    await h.page.getByRole('button', { name: 'Filter' }).click();
    await h.page.waitForURL(/target=/);
    // The table gives way to "Loading events" while the filtered page comes, then shows it: wait for that page
    // itself (one row), not for the old rows to go, which happens first.
    await h.page.waitForFunction("document.querySelectorAll('main tbody tr').length === 1");
    assert.equal(await rows.count(), 1);
    assert.match(await textOf(rows.first()), /key\.created/);

    await h.page.reload();
    await rows.first().waitFor();
    assert.equal(await h.page.getByLabel('Target').inputValue(), keyId, 'the filter is in the URL');

    await clearFilters(h);
    await h.page.getByLabel('Actor').fill('nobody-at-all');
    await h.page.getByRole('button', { name: 'Filter' }).click();
    await h.page.getByText('No events.').waitFor();

    await clearFilters(h);
    await h.page.getByLabel('To (UTC)').fill('2001-01-01T00:00');
    await h.page.getByRole('button', { name: 'Filter' }).click();
    await h.page.getByText('No events.').waitFor();
    await h.page.goBack();
    await h.page.getByRole('button', { name: 'Older' }).waitFor();
  });

  test('nothing failed', () => {
    assert.deepEqual(h.failures, []);
  });
});
