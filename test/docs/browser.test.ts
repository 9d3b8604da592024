import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  ARTIFACTS,
  CHROMIUM,
  MISSING_BROWSER,
  REDOC_RENDER_MS,
  shownText,
  startWatchedBrowser,
  textOf,
  type WatchedBrowser,
} from '../support/browser.js';
import { inspectPage } from '../support/pages.js';

/** Redoc's element ids for an operation and for a security scheme. */
const operation = (tag: string, operationId: string) => `[id="tag/${tag}/operation/${operationId}"]`;
const BEARER_AUTH = '[id="section/Authentication/bearerAuth"]';

/** Opens the reference page and waits until Redoc has rendered it, or has said why it could not. */
async function openDocs(page: Page, url: string): Promise<void> {
  await page.goto(url);
  const root = page.locator('#redoc[data-rendered], #redoc[data-error]');
  await root.waitFor({ timeout: REDOC_RENDER_MS });
  assert.equal(await root.getAttribute('data-error'), null, 'Redoc could not render the document');
}

// A test of its own, so the reason is reported as a failure (the suite's tests are only cancelled).
test('Debian chromium is installed', () => {
  assert.ok(existsSync(CHROMIUM), MISSING_BROWSER);
});

describe('the reference page in a real browser', () => {
  let reader: WatchedBrowser;

  before(async () => {
    reader = await startWatchedBrowser();
    await openDocs(reader.page, `${reader.server.url}/docs`);
  });

  after(async () => {
    if (reader === undefined) return;
    try {
      mkdirSync(ARTIFACTS, { recursive: true });
      // The first screen only: on a loaded machine this hook hung for 20 minutes in a full-page shot of Redoc's
      // long page, with Chromium's renderer gone.
      await reader.page.screenshot({ path: `${ARTIFACTS}docs.png` });
    } finally {
      await reader.close();
    }
  });

  test('the page and its scripts come with their headers', async () => {
    const html = await fetch(`${reader.server.url}/docs`);
    assert.equal(html.status, 200);
    assert.equal(html.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(html.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(
      html.headers.get('content-security-policy'),
      "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
        "font-src 'self' data:; connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'none'; " +
        "frame-ancestors 'none'",
    );

    const scripts = [...(await html.text()).matchAll(/<script src="([^"]+)"><\/script>/g)].map(
      (match) => match[1] ?? '',
    );
    // Redoc, the script that starts it, and the try-it panel.
    assert.equal(scripts.length, 3);
    for (const script of scripts) {
      const response = await fetch(`${reader.server.url}${script}`);
      assert.equal(response.status, 200, script);
      assert.equal(response.headers.get('content-type'), 'text/javascript; charset=utf-8', script);
      assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable', script);
    }
    const bare = await fetch(`${reader.server.url}/docs/redoc.standalone.js`);
    assert.equal(bare.headers.get('cache-control'), 'no-cache');
  });

  test('shows the category operations', async () => {
    assert.match(await shownText(reader.page, operation('Categories', 'listCategories')), /List categories/);
    assert.match(
      await shownText(reader.page, operation('Categories', 'createCategory')),
      /Create a category/,
    );
  });

  test('shows the deprecated operation with its badge and sunset date', async () => {
    // The summary says "(deprecated)"; the capitalised word is Redoc's badge in the same heading.
    const heading = await shownText(reader.page, `${operation('Pets', 'getPetById')} h2`);
    assert.match(heading, /Deprecated/);
    assert.match(heading, /Sunset 2027-06-30/);
    assert.match(await shownText(reader.page, '[id="section/Deprecations"]'), /sunset on 2027-06-30/);
  });

  test('shows the stability badges', async () => {
    assert.match(await shownText(reader.page, `${operation('Pets', 'listPets')} h2`), /Beta/);
    assert.match(await shownText(reader.page, `${operation('Store', 'placeOrder')} h2`), /Experimental/);
  });

  test('shows the authentication, the error table and the rate-limit headers', async () => {
    assert.match(await shownText(reader.page, BEARER_AUTH), /bearerAuth[\s\S]*bearer/i);
    assert.match(await shownText(reader.page, '[id="section/Errors"]'), /rate_limit_exceeded\s+429/);
    const text = await shownText(reader.page, '#redoc');
    for (const header of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After'])
      assert.ok(text.includes(header), header);
  });

  test('the search finds operations (its index runs in a worker, which the CSP must allow)', async () => {
    const search = reader.page.locator('input[placeholder="Search..."]');
    await search.fill('categories');
    await reader.page
      .locator('[data-role="search:results"] [aria-label="List categories"]')
      .waitFor({ timeout: 10_000 });
    await search.fill('');
  });

  test('the #deprecations anchor of the Link header exists, and a visit lands on it', async () => {
    assert.equal(await reader.page.locator('#deprecations').count(), 1);
    const visit = await reader.newPage();
    try {
      await openDocs(visit, `${reader.server.url}/docs#deprecations`);
      // The reader sees the section's heading at the top of the window, and the anchor just below it.
      for (const selector of ['[id="section/Deprecations"] h2', '#deprecations']) {
        const top = await visit.locator(selector).evaluate((element) => element.getBoundingClientRect().top);
        assert.ok(top >= 0 && top < 200, `${selector} is ${top}px from the top of the window`);
      }
    } finally {
      await visit.close();
    }
  });

  test('the admin API has a reference of its own, linked from the API reference', async () => {
    assert.equal(
      (await reader.page.locator('a[href="/docs/admin"]').count()) > 0,
      true,
      'a link to the admin reference',
    );
    const admin = await reader.newPage();
    try {
      await openDocs(admin, `${reader.server.url}/docs/admin`);
      assert.match(await shownText(admin, operation('Keys', 'createApiKey')), /Create an API key/);
      assert.match(await shownText(admin, operation('Keys', 'rotateApiKey')), /Rotate an API key/);
      assert.match(await shownText(admin, operation('Audit', 'listAuditEvents')), /List audit events/);
      // Each part of the admin API is in the side menu once: its tag, not a heading of the introduction too.
      const entries = await admin.locator('.menu-content li[data-item-id] > label').allInnerTexts();
      const named = entries.map((entry) => entry.trim());
      assert.deepEqual(
        named.filter((entry, index) => named.indexOf(entry) !== index),
        [],
        `the menu: ${named.join(', ')}`,
      );
      for (const tag of ['Keys', 'Audit']) assert.ok(named.includes(tag), tag);
    } finally {
      await admin.close();
    }
  });

  test('once rendered, /docs and /docs/admin pass axe at 1280 and 390 pixels and never scroll sideways', async () => {
    // Redoc's code blocks scroll sideways: each must be reachable by keyboard (axe scrollable-region-focusable).
    await inspectPage(reader.page, 'docs', 'docs', { fullPage: false });
    const admin = await reader.newPage();
    try {
      await openDocs(admin, `${reader.server.url}/docs/admin`);
      await inspectPage(admin, 'docs', 'docs-admin', { fullPage: false });
    } finally {
      await admin.close();
    }
  });

  test('the page fills the window, with no frame, under a menu to the guides, your key and the console', async () => {
    assert.equal(await reader.page.evaluate('getComputedStyle(document.body).margin'), '0px');
    const box = (selector: string) =>
      reader.page.evaluate(
        `document.querySelector('${selector}').getBoundingClientRect().toJSON()`,
      ) as Promise<{
        left: number;
        top: number;
        right: number;
      }>;
    const header = await box('body > header');
    assert.deepEqual([header.left, header.top, header.right], [0, 0, 1280], 'the menu spans the window');
    const redoc = await box('#redoc');
    assert.deepEqual([redoc.left, redoc.right], [0, 1280], 'Redoc spans the window');
    const menu = reader.page.getByRole('navigation', { name: 'Site' });
    for (const [name, href] of [
      ['API reference', '/docs'],
      ['Admin API reference', '/docs/admin'],
      ['Your key', '/docs/key'],
      ['Guides', '/docs/guides'],
      ['Console', '/console'],
    ] as const)
      assert.equal(await menu.getByRole('link', { name, exact: true }).getAttribute('href'), href, name);
    assert.equal(
      await menu.getByRole('link', { name: 'API reference', exact: true }).getAttribute('aria-current'),
      'page',
    );
  });

  test('the side menu shows the sunset badge whole, and strikes nothing through', async () => {
    await reader.page.locator('.menu-content label', { hasText: /^Pets$/ }).click();
    const selector = 'li[data-item-id="tag/Pets/operation/getPetById"] .operation-type.badge';
    const badge = reader.page.locator(selector);
    await badge.waitFor();
    assert.match(await textOf(badge), /^sunset 2027-06-30$/i);
    const shown = (await reader.page.evaluate(`(() => {
      const element = document.querySelector('${selector}');
      // A line-through of an ancestor is drawn through its in-flow descendants, the badge's text included.
      let struck = false;
      for (let node = element; node.tagName !== 'LI'; node = node.parentElement)
        if (getComputedStyle(node).textDecorationLine.includes('line-through')) struck = true;
      return { struck, clipped: element.scrollWidth > element.clientWidth || element.scrollHeight > element.clientHeight };
    })()`)) as { struck: boolean; clipped: boolean };
    assert.deepEqual(shown, { struck: false, clipped: false });
  });

  test('nothing failed and nothing outside the server was asked for', () => {
    assert.deepEqual(reader.failures, []);
  });
});
