import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { FakeClock } from '../../src/clock/index.js';
import { assertAccessible, tabTo } from '../console/harness.js';
import { eventually } from '../support/assertions.js';
import { ARTIFACTS, launchBrowser, REDOC_RENDER_MS, textOf, watch } from '../support/browser.js';
import { inspectPage } from '../support/pages.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** A custom domain of the reference, declared in the config file (so served at once), that Chromium maps to loopback. */
const DOMAIN = 'docs.example.test';
const SCREENS = `${ARTIFACTS}reference/`;
const WIDTHS = [1280, 390] as const;

/** Chromium logs most CSP violations itself, but not all: each one becomes a console error, a failure. */
const REPORT_CSP = `document.addEventListener('securitypolicyviolation', (event) => {
  console.error('CSP violation: ' + event.violatedDirective + ' ' + event.blockedURI);
});`;

/**
 * The answers these tests ask for: a request without a key, a free key over its minute's limit, and a filter
 * of the key's requests that the API refuses.
 */
const asked = (status: number, url: string) =>
  ((status === 401 || status === 429) && new URL(url).pathname.startsWith('/v1/')) ||
  (status === 400 && new URL(url).pathname === '/v1/key/requests');

/** Opens the reference and waits until the try-it buttons are on Redoc's operations; answers the render time. */
async function openDocs(page: Page, url: string): Promise<number> {
  await page.goto(`${url}/docs`);
  await page.locator('#redoc[data-rendered]').waitFor({ timeout: REDOC_RENDER_MS });
  const rendered = (await page.evaluate('performance.now()')) as number;
  await page.locator('.try-it-open').first().waitFor();
  return rendered;
}

/** Opens the panel of an operation by its button, as a reader would. */
async function openPanel(page: Page, summary: string): Promise<void> {
  await page.getByRole('button', { name: `Try it: ${summary}` }).click();
  await page.getByRole('dialog').waitFor();
}

/**
 * Sends the panel's request and answers the status, headers and body the panel shows for it: those of the
 * answer with this request's `X-Request-Id`, so an earlier answer still on screen is never read instead.
 */
async function sendFromPanel(
  page: Page,
): Promise<{ status: number; headers: Map<string, string>; body: string }> {
  const [response] = await Promise.all([
    page.waitForResponse((answer) => new URL(answer.url()).pathname.startsWith('/v1/')),
    page.getByRole('button', { name: 'Send', exact: true }).click(),
  ]);
  const requestId = (await response.allHeaders())['x-request-id'] ?? '';
  await page.locator('.try-it [data-header="x-request-id"] dd', { hasText: requestId }).waitFor();
  const status = Number((await textOf(page.getByTestId('answer-status'))).split(' ')[0]);
  assert.equal(status, response.status(), 'the panel shows the status of the answer');
  const headers = new Map<string, string>();
  for (const row of await page.locator('.try-it .header').all())
    headers.set((await row.getAttribute('data-header')) ?? '', await textOf(row.locator('dd')));
  return { status, headers, body: await textOf(page.getByTestId('answer-body')) };
}

/** Redoc's section of an operation. */
const operationSection = (tag: string, operationId: string) => `[id="tag/${tag}/operation/${operationId}"]`;

/** The curl sample shown beside an operation. */
const sampleBeside = (page: Page, tag: string, operationId: string) =>
  page.locator(`${operationSection(tag, operationId)} pre`, { hasText: 'curl -X' });

/** The `/v1` paths a page asks for, in order, from now on. */
function v1Requests(page: Page): string[] {
  const paths: string[] = [];
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (path.startsWith('/v1/')) paths.push(path);
  });
  return paths;
}

/** Enters a key on the key page and submits it, as a reader would; waits for its details. */
async function lookUpKey(page: Page, key: string): Promise<void> {
  await page.getByLabel('Your API key').fill(key);
  await page.getByRole('button', { name: 'Look up key' }).click();
  await page.locator('[data-testid="key-facts"]').waitFor();
}

/** Everything the page holds in storage, as one string. */
const storedText = (page: Page) =>
  page.evaluate('JSON.stringify([{ ...localStorage }, { ...sessionStorage }])') as Promise<string>;

async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENS, { recursive: true });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(200);
    await page.screenshot({ path: `${SCREENS}${name}-${width}.png`, fullPage: !name.startsWith('panel') });
  }
  await page.setViewportSize({ width: WIDTHS[0], height: 900 });
}

describe('the reference: try it, and your key', () => {
  let server: TestServer;
  let clock: FakeClock;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  const failures: string[] = [];
  /** Every key the pages were given, which must never reach the access log. */
  const readerKeys: string[] = [];

  const newPage = async (target: BrowserContext = context, pageOrigin = origin) => {
    const opened = await target.newPage();
    await watch(opened, pageOrigin, failures, asked);
    return opened;
  };

  before(async () => {
    clock = new FakeClock(Date.now());
    server = await startTestServer(
      {},
      { clock, configFile: { domains: { primary: DOMAIN, redirects: [] } } },
    );
    origin = new URL(server.url).origin;
    browser = await launchBrowser([`--host-resolver-rules=MAP ${DOMAIN} 127.0.0.1`]);
    context = await browser.newContext({ viewport: { width: WIDTHS[0], height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    await context.addInitScript(REPORT_CSP);
    page = await newPage();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('try it: GET twice with a key (remaining one lower), POST 201, without a key 401, forget key', async () => {
    const { key } = await server.createKey({ plan: 'pro', name: 'reader' });
    readerKeys.push(key);
    const rendered = await openDocs(page, server.url);
    console.log(`first render of /docs: ${Math.round(rendered)} ms after navigation start`);
    assert.ok((await page.locator('#redoc a[href="/docs/key"]').count()) > 0, '/docs links the key page');

    await openPanel(page, 'Create a category');
    await screenshots(page, 'panel-open');
    await page.keyboard.press('Escape');
    await openPanel(page, 'List categories');
    await page.getByLabel('Your API key').fill(key);
    const first = await sendFromPanel(page);
    assert.equal(first.status, 200, first.body);
    const second = await sendFromPanel(page);
    assert.equal(second.status, 200);
    assert.equal(
      Number(second.headers.get('x-ratelimit-remaining')),
      Number(first.headers.get('x-ratelimit-remaining')) - 1,
    );
    assert.equal(
      (await page.locator('.try-it .header.pacing').count()) >= 3,
      true,
      'the pacing headers stand out',
    );
    assert.match(await textOf(page.locator('.try-it .samples')), /Code samples/);
    await page.getByRole('dialog').getByText('curl', { exact: true }).click();
    assert.match(await textOf(page.locator('.try-it .sample pre').first()), new RegExp(`Bearer ${key}`));
    await screenshots(page, 'panel');
    await assertAccessible(page, '/docs with the panel open');

    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.equal(
      await page.evaluate('document.activeElement.getAttribute("aria-label")'),
      'Try it: List categories',
      'focus returns to the button',
    );
    // The samples Redoc shows beside the operation carry the key now too, and Copy copies what they show.
    const beside = sampleBeside(page, 'Categories', 'listCategories');
    const shownSample = await textOf(beside);
    assert.ok(shownSample.includes(`'Authorization: Bearer ${key}'`), shownSample);
    assert.ok(shownSample.includes(`'${origin}/v1/categories'`), shownSample);
    await page
      .locator(operationSection('Categories', 'listCategories'))
      .getByRole('button', { name: 'Copy the curl sample' })
      .click();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), shownSample);

    await openPanel(page, 'Create a category');
    assert.equal(await page.getByLabel('Your API key').inputValue(), key, 'entered once for the tab');
    await page.getByLabel('Body (JSON)').fill('{"name": "Parrot"}');
    const created = await sendFromPanel(page);
    assert.equal(created.status, 201, created.body);
    assert.equal((JSON.parse(created.body) as { name: string }).name, 'Parrot');

    assert.equal(await page.evaluate('JSON.stringify({ ...localStorage })'), '{}', 'nothing in localStorage');
    await page.getByRole('button', { name: 'Forget key' }).click();
    assert.equal(await page.getByLabel('Your API key').inputValue(), '');
    assert.match(await textOf(sampleBeside(page, 'Categories', 'listCategories')), /\$PETSTORE_KEY/);
    const refused = await sendFromPanel(page);
    assert.equal(refused.status, 401);
    const error = JSON.parse(refused.body) as { code: string; status: number; message: string };
    assert.equal(error.code, 'missing_api_key');
    assert.equal(error.status, 401);
    assert.ok(!(await storedText(page)).includes(key), 'no key in any storage');
    assert.ok(!page.url().includes(key), 'no key in the URL');
    await page.keyboard.press('Escape');
  });

  test('over the limit, the panel shows the 429 with its Error body and Retry-After marked', async () => {
    const { key } = await server.createKey({
      plan: 'enterprise',
      name: 'limited',
      limits: { perMinute: 2, perDay: 100 },
    });
    readerKeys.push(key);
    await page.reload();
    await page.locator('.try-it-open').first().waitFor();
    await openPanel(page, 'List categories');
    await page.getByLabel('Your API key').fill(key);
    assert.equal((await sendFromPanel(page)).status, 200);
    assert.equal((await sendFromPanel(page)).status, 200);
    const limited = await sendFromPanel(page);
    assert.equal(limited.status, 429);
    assert.equal((JSON.parse(limited.body) as { code: string }).code, 'rate_limit_exceeded');
    assert.match(limited.headers.get('retry-after') ?? '', /^\d+$/);
    assert.equal(await page.locator('.try-it .header.pacing[data-header="retry-after"]').count(), 1);
    await page.getByRole('button', { name: 'Forget key' }).click();
    await page.keyboard.press('Escape');
  });

  test('keyboard alone opens the panel, enters the key and sends a request', async () => {
    const { key } = await server.createKey({ plan: 'pro', name: 'keyboard' });
    readerKeys.push(key);
    const keyboard = await newPage();
    await openDocs(keyboard, server.url);
    await tabTo(keyboard, 'Try it: List categories', 400);
    await keyboard.keyboard.press('Enter');
    await keyboard.getByRole('dialog').waitFor();
    await tabTo(keyboard, 'Your API key');
    await keyboard.keyboard.type(key);
    await tabTo(keyboard, 'Send');
    await keyboard.keyboard.press('Enter');
    await keyboard.getByTestId('answer-status').waitFor();
    assert.match(await textOf(keyboard.getByTestId('answer-status')), /^200/);
    await keyboard.close();
  });

  test('typing a key on the key page asks nothing; a mistyped one is refused there; a submitted one is asked once', async () => {
    const { key } = await server.createKey({ plan: 'pro', name: 'typed' });
    readerKeys.push(key);
    const { token } = await server.createAdminToken('not a key');
    const keyPage = await newPage();
    const asked = v1Requests(keyPage);
    await keyPage.goto(`${server.url}/docs/key`);
    const field = keyPage.getByLabel('Your API key');
    // A reader types the key: each keystroke used to send two requests, 401s that spent the address's quota.
    await field.pressSequentially(key);
    assert.deepEqual(asked, [], 'nothing is asked while the key is typed');

    const refused = async (text: string, reason: RegExp) => {
      await field.fill(text);
      await keyPage.getByRole('button', { name: 'Look up key' }).click();
      const alert = keyPage.locator('.key-field [role="alert"]');
      assert.match(await textOf(alert), reason, text);
      assert.equal(await field.getAttribute('aria-invalid'), 'true');
      assert.equal(await keyPage.evaluate('document.activeElement.id'), await field.getAttribute('id'));
    };
    const last = key.at(-1) === 'a' ? 'b' : 'a';
    await refused(`${key.slice(0, -1)}${last}`, /checksum/);
    await refused(key.slice(0, 20), /40 characters/);
    await refused(token, /admin token/);
    assert.deepEqual(asked, [], 'a key the page can tell is wrong is never sent');

    // A pasted header value is understood.
    await lookUpKey(keyPage, `  Bearer ${key} `);
    await keyPage.getByRole('table', { name: 'Your recent requests, newest first' }).waitFor();
    assert.deepEqual(asked.sort(), ['/v1/key', '/v1/key/requests', '/v1/key/usage'], 'asked once, on submit');
    assert.equal(await field.getAttribute('aria-invalid'), null);
    assert.equal(await field.inputValue(), key, 'the field holds the key itself');
    await inspectPage(keyPage, 'reference', 'key-page-looked-up');
    await keyPage.close();
  });

  test('the key field shows and hides the key', async () => {
    const keyPage = await newPage();
    await keyPage.goto(`${server.url}/docs/key`);
    const field = keyPage.getByLabel('Your API key');
    await field.fill(server.key);
    assert.equal(await field.getAttribute('type'), 'password');
    await keyPage.getByRole('button', { name: 'Show key' }).click();
    assert.equal(await field.getAttribute('type'), 'text');
    assert.equal(await field.inputValue(), server.key);
    await keyPage.getByRole('button', { name: 'Hide key' }).click();
    assert.equal(await field.getAttribute('type'), 'password');
    await keyPage.close();
  });

  test("rotate's form takes the focus when it opens and gives it back; its grace period may be in days, up to 30", async () => {
    const { key } = await server.createKey({ plan: 'pro', name: 'rotated in days' });
    readerKeys.push(key);
    const keyPage = await newPage();
    await keyPage.goto(`${server.url}/docs/key`);
    await lookUpKey(keyPage, key);
    const focusedId = () => keyPage.evaluate('document.activeElement.id');
    await keyPage.getByRole('button', { name: 'Rotate key…' }).click();
    const grace = keyPage.getByLabel('Grace period');
    assert.equal(await focusedId(), await grace.getAttribute('id'), 'focus is in the form');
    await keyPage.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(
      await keyPage.evaluate('document.activeElement.textContent'),
      'Rotate key…',
      'focus is back on the button that opened it',
    );

    await keyPage.getByRole('button', { name: 'Rotate key…' }).click();
    await keyPage.getByLabel('Unit').selectOption('days');
    await grace.fill('31');
    assert.match(await textOf(keyPage.locator('#grace-hint')), /Too long: .* at most 30 days/);
    assert.equal(await grace.getAttribute('aria-invalid'), 'true');
    assert.equal(await keyPage.getByRole('button', { name: 'Rotate key', exact: true }).isDisabled(), true);
    await grace.fill('2');
    await inspectPage(keyPage, 'reference', 'key-rotate-form');
    const [sent] = await Promise.all([
      keyPage.waitForRequest((request) => request.url().endsWith('/v1/key/rotate')),
      keyPage.getByRole('button', { name: 'Rotate key', exact: true }).click(),
    ]);
    assert.deepEqual(sent.postDataJSON(), { gracePeriodSeconds: 2 * 86_400 });
    readerKeys.push(await textOf(keyPage.getByTestId('new-key')));
    await keyPage.close();
  });

  test('the key page shows what GET /v1/key and GET /v1/key/usage answer', async () => {
    const { key } = await server.createKey({ plan: 'business', name: 'mine', scopes: ['pets:read'] });
    readerKeys.push(key);
    for (let sent = 0; sent < 3; sent += 1)
      await server.call('/v1/pets', { headers: { authorization: `Bearer ${key}` } });
    await server.call('/v1/categories', { headers: { authorization: `Bearer ${key}` } }); // 403: a client error

    const keyPage = await newPage();
    await keyPage.goto(`${server.url}/docs/key`);
    // The usage the page was answered: its own reads of the key count as requests too, so a later read differs.
    const usageAnswer = keyPage.waitForResponse((response) => response.url().endsWith('/v1/key/usage'));
    await lookUpKey(keyPage, key);
    const info = (await server.call('/v1/key', { headers: { authorization: `Bearer ${key}` } })).body as {
      plan: string;
      scopes: string[];
      limits: Record<'minute' | 'day', { limit: number; remaining: number }>;
    };
    assert.equal(await textOf(keyPage.locator('[data-fact="plan"]')), info.plan);
    assert.equal(await textOf(keyPage.locator('[data-fact="scopes"]')), info.scopes.join(', '));
    assert.equal(await textOf(keyPage.locator('[data-fact="expiresAt"]')), 'Never');
    assert.equal(await textOf(keyPage.locator('[data-fact="ban"]')), 'Not banned');
    for (const window of ['minute', 'day'] as const) {
      const row = keyPage.locator(`[data-window="${window}"]`);
      const number = async (field: string) =>
        Number((await textOf(row.locator(`[data-field="${field}"]`))).replaceAll(',', ''));
      assert.equal(await number('limit'), info.limits[window].limit, window);
      assert.equal(await number('remaining'), info.limits[window].remaining, window);
      // The server's clock is a fake one that stands still: its minute may already be over by the browser's.
      assert.match(
        await textOf(row.locator('[data-testid="countdown"]')),
        window === 'day' ? /^in \d/ : /^(in \d|now)/,
      );
    }

    const usage = (await (await usageAnswer).json()) as {
      hours: Record<string, number>[];
      days: Record<string, number>[];
    };
    assert.equal(sum(usage.hours, 'success'), 3 + 1, "three GET /v1/pets and the page's GET /v1/key");
    assert.equal(sum(usage.hours, 'clientErrors'), 1);
    const totals = (buckets: Record<string, number>[]) =>
      `OK: ${sum(buckets, 'success')} · Client errors: ${sum(buckets, 'clientErrors')} · ` +
      `Rate limited: ${sum(buckets, 'rateLimited')} · Server errors: ${sum(buckets, 'serverErrors')}`;
    const shown = await keyPage.locator('.chart-totals').allInnerTexts();
    assert.deepEqual(shown, [totals(usage.hours), totals(usage.days)]);
    assert.equal(await keyPage.locator('.numbers').first().locator('tbody tr').count(), usage.hours.length);
    assert.equal(await keyPage.locator('.numbers').nth(1).locator('tbody tr').count(), usage.days.length);
    await assertAccessible(keyPage, '/docs/key');
    await screenshots(keyPage, 'key-page');
    await keyPage.close();
  });

  test("the key page's recent requests: the key's own, filtered, each id copyable; a refused filter says why", async () => {
    const { key } = await server.createKey({ plan: 'pro', name: 'logged' });
    const { key: other } = await server.createKey({ plan: 'pro', name: 'someone else' });
    readerKeys.push(key, other);
    const idOf = (answer: { headers: Headers }) => answer.headers.get('x-request-id') ?? '';
    const as = (apiKey: string) => ({ headers: { authorization: `Bearer ${apiKey}` } });
    const sent = {
      ok: idOf(await server.call('/v1/pets', as(key))),
      missing: idOf(await server.call('/v1/pets/999999', as(key))),
      invalid: idOf(await server.call('/v1/pets?limit=0', as(key))),
    };
    const othersId = idOf(await server.call('/v1/pets', as(other)));
    // Rows land in the log a moment after their answers: wait until the API shows all three.
    await eventually(
      'the three requests in the log',
      async () => {
        const rows = (await server.call('/v1/key/requests?limit=200', as(key))).body as {
          requestId: string;
        }[];
        return Object.values(sent).every((id) => rows.some((row) => row.requestId === id));
      },
      30_000,
    );

    const keyPage = await newPage();
    await keyPage.goto(`${server.url}/docs/key`);
    await lookUpKey(keyPage, key);
    const table = keyPage.getByRole('table', { name: 'Your recent requests, newest first' });
    const row = (id: string) => table.locator(`tr[data-request-id="${id}"]`);
    for (const id of Object.values(sent)) await row(id).waitFor();
    assert.equal(await row(othersId).count(), 0, "another key's request is never shown");
    // The error's message goes with its request, so that the Status column is a status wide.
    assert.match(
      await textOf(row(sent.missing)),
      /GET \/v1\/pets\/999999\s+No pet has the id 999999\s+404 not_found/,
    );

    // Only the client errors, as GET /v1/key/requests?status=4xx answers them.
    await keyPage.getByLabel('Status').fill('4xx');
    await keyPage.getByRole('button', { name: 'Filter', exact: true }).click();
    await row(sent.ok).waitFor({ state: 'detached' });
    const statuses = await table.locator('tbody td[data-label="Status"] .badge').allInnerTexts();
    assert.ok(
      statuses.length >= 2 && statuses.every((status) => status.startsWith('4')),
      statuses.join(', '),
    );
    assert.equal(await row(sent.missing).count(), 1);
    assert.equal(await row(sent.invalid).count(), 1);

    await row(sent.missing)
      .getByRole('button', { name: `Copy request id ${sent.missing}` })
      .click();
    assert.equal(await keyPage.evaluate('navigator.clipboard.readText()'), sent.missing);
    await assertAccessible(keyPage, '/docs/key, recent requests');
    await screenshots(keyPage, 'key-requests');

    // A filter the API refuses is said in the API's words, and Clear brings every row back.
    await keyPage.getByLabel('Status').fill('4zz');
    await keyPage.getByRole('button', { name: 'Filter', exact: true }).click();
    assert.match(await textOf(keyPage.getByRole('alert')), /status/i);
    await keyPage.getByRole('button', { name: 'Clear', exact: true }).click();
    await row(sent.ok).waitFor();
    await keyPage.close();
  });

  test("the key page finds one of the key's requests by the id pasted, and says why an id may find none", async () => {
    const { key } = await server.createKey({ plan: 'pro', name: 'finder' });
    const { key: other } = await server.createKey({ plan: 'pro', name: 'not the finder' });
    readerKeys.push(key, other);
    const as = (apiKey: string) => ({ headers: { authorization: `Bearer ${apiKey}` } });
    const idOf = (answer: { headers: Headers }) => answer.headers.get('x-request-id') ?? '';
    const mine = idOf(await server.call('/v1/pets/424242', as(key)));
    const theirs = idOf(await server.call('/v1/pets', as(other)));
    await eventually(
      'both requests in the log',
      async () =>
        ((await server.call(`/v1/key/requests?requestId=${mine}`, as(key))).body as unknown[]).length === 1 &&
        ((await server.call(`/v1/key/requests?requestId=${theirs}`, as(other))).body as unknown[]).length ===
          1,
      30_000,
    );

    const keyPage = await newPage();
    const asked = v1Requests(keyPage);
    await keyPage.goto(`${server.url}/docs/key`);
    await lookUpKey(keyPage, key);
    const box = keyPage.getByRole('textbox', { name: 'Request id', exact: true });
    // By keyboard alone: Tab reaches the box; an id pasted with spaces around it, and Enter.
    await tabTo(keyPage, 'Request id', 20);
    await keyPage.keyboard.insertText(`  ${mine} `);
    await keyPage.keyboard.press('Enter');
    const found = keyPage.getByRole('table', { name: `Your request ${mine}` });
    await found.locator(`tr[data-request-id="${mine}"]`).waitFor();
    assert.match(await textOf(found), /GET \/v1\/pets\/424242\s+No pet has the id 424242\s+404 not_found/);
    assert.ok(asked.includes('/v1/key/requests'), asked.join());
    await inspectPage(keyPage, 'reference', 'key-find-request');

    // Another key's id finds nothing, and the page says what that can mean.
    await box.fill(theirs);
    await keyPage.getByRole('button', { name: 'Find', exact: true }).click();
    const none = keyPage.getByRole('status').filter({ hasText: theirs });
    await none.waitFor();
    assert.match(
      await textOf(none),
      /None of this key's requests has the id \S+\. It may be another key's, older than the days the request log keeps \(7 by default\), or sent while the log was off; a request just answered shows within a second\./,
    );
    assert.equal(await found.count(), 0, 'the request found before is gone');
    await inspectPage(keyPage, 'reference', 'key-find-none');

    // What cannot be a request id is said without asking.
    const before = asked.length;
    await box.fill('not an id!');
    await keyPage.getByRole('button', { name: 'Find', exact: true }).click();
    await keyPage.getByText(/A request id has only letters, digits and/).waitFor();
    assert.equal(asked.length, before, 'nothing asked');
    assert.equal(await box.getAttribute('aria-invalid'), 'true');
    await keyPage.close();
  });

  test('rotate from the key page: the new key works, the old one until its grace ends; revoke refuses it', async () => {
    const { key: old } = await server.createKey({ plan: 'pro', name: 'rotating' });
    readerKeys.push(old);
    const keyPage = await newPage();
    await keyPage.goto(`${server.url}/docs/key`);
    await lookUpKey(keyPage, old);
    await keyPage.getByRole('button', { name: 'Rotate key…' }).click();
    await keyPage.getByLabel('Grace period').fill('1');
    await keyPage.getByRole('button', { name: 'Rotate key', exact: true }).click();
    const fresh = await textOf(keyPage.getByTestId('new-key'));
    readerKeys.push(fresh);
    assert.match(await textOf(keyPage.locator('.new-key')), /It will not be shown again/);
    assert.equal(await keyPage.getByLabel('Your API key').inputValue(), fresh, 'the page uses the new key');
    await screenshots(keyPage, 'key-rotated');

    const status = async (key: string) =>
      (await server.call('/v1/categories', { headers: { authorization: `Bearer ${key}` } })).status;
    assert.equal(await status(fresh), 200);
    assert.equal(await status(old), 200, 'within the grace period');
    clock.advance(3_600_001);
    await server.deps.authenticator.refresh();
    assert.equal(await status(old), 401, 'after the grace period');
    assert.equal(await status(fresh), 200);

    await keyPage.getByRole('button', { name: 'Done' }).click();
    await keyPage.getByRole('button', { name: 'Revoke key…' }).click();
    await keyPage.getByRole('dialog').waitFor();
    await assertAccessible(keyPage, '/docs/key with the revoke dialog');
    await keyPage.getByRole('button', { name: 'Revoke key', exact: true }).click();
    await keyPage.getByText(/was revoked/).waitFor();
    assert.equal(await status(fresh), 401, 'refused at once on this instance');
    await eventually(
      'the page forgot it',
      async () => (await keyPage.getByLabel('Your API key').inputValue()) === '',
    );
    assert.ok(!(await storedText(keyPage)).includes(fresh));
    await keyPage.close();
  });

  test('revoking a rotated key from the key page names its successor first, and revokes it too', async () => {
    const { key: leaked } = await server.createKey({ plan: 'pro', name: 'leaked' });
    readerKeys.push(leaked);
    const rotated = await server.call('/v1/key/rotate', {
      method: 'POST',
      headers: { authorization: `Bearer ${leaked}`, 'content-type': 'application/json' },
      body: JSON.stringify({ gracePeriodSeconds: 86_400 }),
    });
    const successor = rotated.body as { id: string; key: string };
    readerKeys.push(successor.key);
    const keyPage = await newPage();
    await keyPage.goto(`${server.url}/docs/key`);
    await lookUpKey(keyPage, leaked);
    await keyPage.getByRole('button', { name: 'Revoke key…' }).click();
    const dialog = keyPage.getByRole('dialog');
    await dialog.getByText(successor.id).waitFor();
    await keyPage.getByRole('button', { name: 'Revoke key', exact: true }).click();
    await keyPage.getByText(new RegExp(`with the keys rotated from it: ${successor.id}`)).waitFor();
    await server.deps.authenticator.refresh();
    const status = (
      await server.call('/v1/categories', { headers: { authorization: `Bearer ${successor.key}` } })
    ).status;
    assert.equal(status, 401, 'the successor is revoked with it');
    await keyPage.close();
  });

  test(`on a custom domain's Host (${DOMAIN}) the panel sends to that origin`, async () => {
    const { key } = await server.createKey({ plan: 'pro', name: 'domain' });
    readerKeys.push(key);
    const domainOrigin = `http://${DOMAIN}:${new URL(server.url).port}`;
    const domainContext = await browser.newContext();
    await domainContext.addInitScript(REPORT_CSP);
    const domainPage = await newPage(domainContext, domainOrigin);
    await openDocs(domainPage, domainOrigin);
    // The samples beside the operations send to the origin the page came from, with the key from the
    // environment until one is entered.
    const shownSample = await textOf(sampleBeside(domainPage, 'Categories', 'listCategories'));
    assert.ok(shownSample.includes(`'${domainOrigin}/v1/categories'`), shownSample);
    assert.ok(shownSample.includes('$PETSTORE_KEY'), shownSample);
    await openPanel(domainPage, 'List categories');
    const anonymous = await sendFromPanel(domainPage);
    assert.equal(anonymous.status, 401);
    assert.equal((JSON.parse(anonymous.body) as { code: string }).code, 'missing_api_key');
    await domainPage.getByLabel('Your API key').fill(key);
    const first = await sendFromPanel(domainPage);
    const second = await sendFromPanel(domainPage);
    assert.equal(second.status, 200);
    assert.equal(
      Number(second.headers.get('x-ratelimit-remaining')),
      Number(first.headers.get('x-ratelimit-remaining')) - 1,
    );
    await domainPage.keyboard.press('Escape');
    await openPanel(domainPage, 'Create a category');
    assert.equal((await sendFromPanel(domainPage)).status, 201);
    await domainPage.getByRole('button', { name: 'Forget key' }).click();
    assert.ok(!(await storedText(domainPage)).includes(key));
    assert.ok(!domainPage.url().includes(key));
    await domainContext.close();
  });

  test("no reader's key in the access log, no request but to the origin, no console error or CSP violation", () => {
    const log = server.logs.join('\n');
    assert.ok(log.includes('/v1/categories'), 'the access log has the requests');
    for (const key of readerKeys) assert.ok(!log.includes(key), 'a key in the access log');
    assert.deepEqual(failures, []);
  });
});

function sum(buckets: Record<string, number>[], field: string): number {
  return buckets.reduce((total, bucket) => total + (bucket[field] ?? 0), 0);
}
