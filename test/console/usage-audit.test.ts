import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { textOf } from '../support/browser.js';
import { type ConsoleHarness, inspectPage, signIn, startConsole } from './harness.js';

const HOURLY = 'Requests per hour, last 48 hours';
const DAILY = 'Requests per day, last 90 days';

/** Clears the filters, and waits for the form of the unfiltered URL (a new URL makes a new form). */
async function clearFilters(h: ConsoleHarness): Promise<void> {
  await h.page.getByRole('link', { name: 'Clear' }).click();
  // Not waitForFunction: past its first check it polls by eval in the page, which the console's CSP refuses.
  await h.page.waitForURL((url) => url.search === '');
  const inputs = h.page.locator('form input');
  while (
    !(await inputs.evaluateAll((all) =>
      all.every((input) => (input as unknown as { value: string }).value === ''),
    ))
  ) {
    await h.page.waitForTimeout(50);
  }
}

/** The numbers of a chart's table (its footer: the totals), as screen readers read them. */
async function totals(h: ConsoleHarness, caption: string): Promise<string[]> {
  const cells = h.page.locator(`table:has(caption:text-is("${caption}")) tfoot td`);
  return (await cells.allTextContents()).map((text) => text.trim());
}

/** The colours of the outcomes in the charts (usage-chart.tsx), as the canvas holds them. */
const OK_RGB = [0x25, 0x63, 0xeb];
const CLIENT_ERRORS_RGB = [0xb4, 0x53, 0x09];

interface Painted {
  /** The canvas's width, in its own pixels. */
  width: number;
  /** The columns that hold the colour, left to right. */
  columns: number[];
  /** For each of those columns, its longest unbroken run of the colour, top to bottom. */
  runs: number[];
}

/**
 * Where a chart's canvas holds a colour, read from its pixels: the chart is a picture, and this is what the
 * eye sees of it. Pixels within a small distance of the colour count (edges are smoothed).
 */
async function painted(h: ConsoleHarness, caption: string, rgb: number[]): Promise<Painted> {
  const section = `section.chart:has(h3:text-is("${caption}"))`;
  await h.page.locator(`${section} .chart-plot canvas`).waitFor();
  const index = await h.page
    .locator('section.chart')
    .evaluateAll(
      (sections, title) =>
        sections.findIndex((section) => section.querySelector('h3')?.textContent === title),
      caption,
    );
  return (await h.page.evaluate(`(() => {
    const canvas = document.querySelectorAll('section.chart')[${index}].querySelector('.chart-plot canvas');
    const { width, height } = canvas;
    const pixels = canvas.getContext('2d').getImageData(0, 0, width, height).data;
    const [r, g, b] = ${JSON.stringify(rgb)};
    const columns = [];
    const runs = [];
    for (let x = 0; x < width; x += 1) {
      let run = 0;
      let longest = 0;
      for (let y = 0; y < height; y += 1) {
        const at = (y * width + x) * 4;
        const near = Math.abs(pixels[at] - r) + Math.abs(pixels[at + 1] - g) + Math.abs(pixels[at + 2] - b) < 24 && pixels[at + 3] > 200;
        run = near ? run + 1 : 0;
        longest = Math.max(longest, run);
      }
      if (longest > 0) {
        columns.push(x);
        runs.push(longest);
      }
    }
    return { width, columns, runs };
  })()`)) as Painted;
}

/** The legend of a chart as uPlot shows it: each series' label and value. */
async function legend(h: ConsoleHarness, caption: string): Promise<Record<string, string>> {
  const rows = h.page.locator(`section.chart:has(h3:text-is("${caption}")) .u-legend .u-series`);
  const entries: [string, string][] = [];
  for (const row of await rows.all()) {
    entries.push([
      (await textOf(row.locator('.u-label'))).trim(),
      (await textOf(row.locator('.u-value'))).trim(),
    ]);
  }
  return Object.fromEntries(entries);
}

/** The last row of a chart's table: the latest bucket, as the API gave it. */
async function latestRow(h: ConsoleHarness, caption: string): Promise<string[]> {
  const cells = h.page.locator(`table:has(caption:text-is("${caption}")) tbody tr`).last().locator('th, td');
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

  test('counts are bars: a burst is one filled bar a bucket wide, its outcomes stacked, not a ramp', async () => {
    for (const [caption, buckets] of [
      [HOURLY, 48],
      [DAILY, 90],
    ] as const) {
      const ok = await painted(h, caption, OK_RGB);
      const errors = await painted(h, caption, CLIENT_ERRORS_RGB);
      assert.ok(ok.columns.length > 0, `${caption}: the OK answers are drawn`);
      const bucket = ok.width / buckets;
      const span = (ok.columns.at(-1) ?? 0) - (ok.columns[0] ?? 0) + 1;
      // Every request of this test was sent in the last bucket: one bar, at the right, and nothing before it.
      assert.ok(
        span <= bucket,
        `${caption}: the OK colour spans ${span} px, more than a bucket (${bucket} px)`,
      );
      assert.equal(span, ok.columns.length, `${caption}: one bar, without gaps`);
      assert.ok((ok.columns[0] ?? 0) > ok.width * 0.8, `${caption}: the bar is the latest bucket's`);
      // A bar is filled: the middle of it is a tall run of its colour, where a line would be a stroke's width.
      const middle = ok.runs[Math.floor(ok.runs.length / 2)] ?? 0;
      assert.ok(middle > 40, `${caption}: filled, not a line (${middle} px tall at its middle)`);
      // The client errors sit on the OK answers, in the same bar.
      assert.ok(errors.columns.length > 0, `${caption}: the client errors are drawn`);
      assert.ok(
        errors.columns.every(
          (column) => column >= (ok.columns[0] ?? 0) - 1 && column <= (ok.columns.at(-1) ?? 0) + 1,
        ),
        `${caption}: the client errors are in the same bar`,
      );
    }
  });

  test("the legend shows the latest bucket's numbers, another bucket's while hovered, then the latest again", async () => {
    // The latest bucket as the table has it: the hour (UTC) and its four counts.
    const [hour, ...counts] = await latestRow(h, HOURLY);
    const expected = {
      'Hour (UTC)': hour,
      OK: counts[0],
      'Client errors': counts[1],
      'Rate limited': counts[2],
      'Server errors': counts[3],
    };
    assert.deepEqual(await legend(h, HOURLY), expected, 'before any hover: the latest bucket, never --');
    const [day, ...dayCounts] = await latestRow(h, DAILY);
    assert.deepEqual(await legend(h, DAILY), {
      'Day (UTC)': day,
      OK: dayCounts[0],
      'Client errors': dayCounts[1],
      'Rate limited': dayCounts[2],
      'Server errors': dayCounts[3],
    });

    // The first hour of the chart, 47 hours ago: nothing was sent then.
    const plot = h.page.locator(`section.chart:has(h3:text-is("${HOURLY}")) .u-over`);
    const box = await plot.boundingBox();
    assert.ok(box);
    await h.page.mouse.move(box.x + 2, box.y + box.height / 2);
    const hovered = await legend(h, HOURLY);
    assert.notEqual(hovered['Hour (UTC)'], hour, 'another hour');
    assert.equal(hovered.OK, '0');
    await h.page.mouse.move(0, 0);
    assert.deepEqual(await legend(h, HOURLY), expected, 'after the cursor leaves: the latest bucket again');
  });

  test('the usage page passes axe and never scrolls sideways', async () => {
    await inspectPage(h.page, 'usage-bars');
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
    await rows.nth(1).waitFor({ state: 'detached' });
    await rows.first().waitFor();
    assert.equal(await rows.count(), 1);
    assert.match(await textOf(rows.first()), /key\.created/);

    await h.page.reload();
    await rows.first().waitFor();
    assert.equal(await h.page.getByLabel('Target').inputValue(), keyId, 'the filter is in the URL');

    await clearFilters(h);
    await h.page.getByLabel('Actor', { exact: true }).fill('nobody-at-all');
    await h.page.getByRole('button', { name: 'Filter' }).click();
    await h.page.getByText('No events.').waitFor();

    await clearFilters(h);
    await h.page.getByLabel('To (UTC)').fill('2001-01-01T00:00');
    await h.page.getByRole('button', { name: 'Filter' }).click();
    await h.page.getByText('No events.').waitFor();
    await h.page.goBack();
    await h.page.getByRole('button', { name: 'Older' }).waitFor();
  });

  test("the audit says who in words (the token's name with its id) and what in words, never a bare null", async () => {
    const admin = await h.server.createAdminToken('Release pipeline');
    const made = (
      await h.server.admin(admin.token, '/keys', { method: 'POST', json: { plan: 'pro', name: 'Audited' } })
    ).body as { id: string; key: string };
    await h.server.admin(admin.token, `/keys/${made.id}/rotate`, {
      method: 'POST',
      json: { gracePeriodSeconds: 7200 },
    });
    await h.open(`/console/audit?target=${made.id}`);
    const created = h.page.locator('main tbody tr', { hasText: 'key.created' });
    await created.waitFor();
    const createdText = await textOf(created);
    assert.match(
      createdText,
      new RegExp(`Release pipeline\\s+${admin.id}`),
      'the actor by name, with its id',
    );
    assert.match(createdText, /limits\s+the plan’s/);
    assert.match(createdText, /expires\s+never/);
    assert.match(createdText, /scopes\s+categories:read, categories:write/);
    assert.doesNotMatch(createdText, /\bnull\b/);
    const rotated = await textOf(h.page.locator('main tbody tr', { hasText: 'key.rotated' }));
    assert.match(rotated, /grace period\s+2 hours/);
    assert.match(rotated, /old key works until\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    assert.doesNotMatch(rotated, /\bnull\b|gracePeriodSeconds|7200/);
    // The key this test's server made at start was made by the command line, which has no token.
    await h.open('/console/audit?actor=cli');
    await h.page.locator('main tbody tr').first().waitFor();
    assert.match(await textOf(h.page.locator('main tbody tr').first()), /Command line\s+cli/);
    await inspectPage(h.page, 'audit-words');
  });

  test('the audit shows its times as times, each with its instant; a webhook target leads to its endpoint', async () => {
    const url = 'https://someone:s3cret@hooks.example.test/in?token=capability';
    const created = await h.server.admin(h.token, '/webhooks', {
      method: 'POST',
      json: { url, events: ['order.placed'] },
    });
    assert.equal(created.status, 201, created.text);
    const { id } = created.body as { id: string };
    const rotated = await h.server.admin(h.token, `/webhooks/${id}/rotate-secret`, { method: 'POST' });
    assert.ok(rotated.status < 300, rotated.text);
    await h.open(`/console/audit?target=${id}`);
    const rows = h.page.locator('main tbody tr');
    const rotation = rows.filter({ hasText: 'webhook.secret_rotated' });
    await rotation.waitFor();
    assert.equal(await rows.count(), 2);

    // Every time in words, never as the API writes it; each When holds the exact instant in its <time>.
    assert.doesNotMatch(await textOf(h.page.locator('main table')), /\d{4}-\d\d-\d\dT\d\d:\d\d/);
    assert.match(await textOf(rotation), /previous secret signs until\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    const instants = await h.page
      .locator('main tbody td[data-label="When"] time')
      .evaluateAll((times) => times.map((time) => time.getAttribute('datetime')));
    const events = (await h.server.admin(h.token, `/audit?target=${id}`)).body as { at: string }[];
    assert.deepEqual(instants.sort(), events.map((event) => event.at).sort());

    // The target leads to the endpoint's page; the URL, masked as the API shows it, is no link anywhere.
    const target = rotation.getByRole('link', { name: id });
    assert.equal(await target.getAttribute('href'), `/console/webhooks/${id}`);
    assert.equal(await h.page.locator('main a[href^="http"]').count(), 0);
    assert.doesNotMatch(await textOf(h.page.locator('main')), /s3cret/);
    await inspectPage(h.page, 'audit-webhook');
    await target.click();
    await h.page
      .getByRole('heading', { level: 1, name: 'https://***:***@hooks.example.test/in?token=capability' })
      .waitFor();
    assert.equal(
      await h.page.locator('main a[href^="http"]').count(),
      0,
      'the endpoint page links no URL of it',
    );
    await h.open('/console/webhooks');
    const listed = h.page.getByRole('link', {
      name: 'https://***:***@hooks.example.test/in?token=capability',
    });
    assert.equal(await listed.getAttribute('href'), `/console/webhooks/${id}`);
    assert.equal(await h.page.locator('main a[href^="http"]').count(), 0, 'the list links no URL of one');
  });

  test('nothing failed', () => {
    assert.deepEqual(h.failures, []);
  });
});
