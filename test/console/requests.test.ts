import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Request } from 'playwright-core';
import { textOf } from '../support/browser.js';
import { type ConsoleHarness, inspectPage, signIn, startConsole } from './harness.js';

/** How often the Requests page's live tail asks (requests-page.tsx). */
const TAIL_MS = 2000;

/**
 * Where the text of each cell the selector finds breaks to a new line, other than after a `/`, a `-` or a
 * space: each such break as the text with a `|` where it broke. Read from the rectangle of each character.
 */
const breaksWithin = (selector: string) => `(() => {
  const found = [];
  for (const element of document.querySelectorAll(${JSON.stringify(selector)})) {
    const chars = [];
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.data.length; i += 1) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        // A space at the end of a line has no box: it stays on the line before.
        const rect = range.getClientRects()[0] ?? chars.at(-1) ?? { top: 0, height: 0 };
        chars.push({ char: node.data[i], top: rect.top, height: rect.height });
      }
    }
    const text = chars.map((one) => one.char).join('');
    for (let i = 1; i < chars.length; i += 1) {
      const before = chars[i - 1];
      if (chars[i].top > before.top + before.height / 2 && !'/- '.includes(before.char) && chars[i].char !== ' ')
        found.push(text.slice(0, i) + '|' + text.slice(i));
    }
  }
  return found;
})()`;

describe('the request log in the console', () => {
  let h: ConsoleHarness;
  let keyA = { id: '', key: '' };
  let keyB = { id: '', key: '' };
  /** The `X-Request-Id` the 404 of key A got. */
  let missingId = '';

  /** Sends a request with a key and answers the request id its client got. */
  const send = async (key: string, path: string) => {
    const answer = await h.server.call(path, { headers: { authorization: `Bearer ${key}` } });
    const id = answer.headers.get('x-request-id');
    assert.ok(id, `${path} answered an X-Request-Id`);
    return id;
  };
  const rows = () => h.page.locator('main tbody tr');
  /** The row of a request, by the path it asked for. */
  const rowOf = (path: string) => h.page.locator('main tbody tr', { hasText: path });

  before(async () => {
    // The unknown request id the search is asked for on purpose answers 404.
    h = await startConsole((status, url) => status === 404 && url.includes('/admin/v1/requests/no-such-'));
    keyA = await h.server.createKey({ plan: 'free', name: 'Alpha' });
    keyB = await h.server.createKey({ plan: 'free', name: 'Beta' });
    await send(keyA.key, '/v1/categories');
    missingId = await send(keyA.key, '/v1/pets/999999999');
    await send(keyB.key, '/v1/categories');
    await h.open('/console/requests');
    await signIn(h.page, h.token);
  });
  after(async () => {
    await h?.close();
  });

  test('the Requests page lists requests newest first, with every caller', async () => {
    await h.page.getByRole('heading', { name: 'Requests', level: 1 }).waitFor();
    await rowOf('/v1/pets/999999999').waitFor();
    const texts = await rows().allInnerTexts();
    const a404 = texts.findIndex((text) => text.includes('/v1/pets/999999999'));
    const b200 = texts.findIndex((text) => text.includes(keyB.id));
    assert.ok(b200 >= 0 && b200 < a404, 'B’s request, sent last, is above A’s 404');
    assert.match(texts[a404] ?? '', /404 not_found/);
    assert.equal(
      await h.page.getByRole('link', { name: 'Requests' }).first().getAttribute('aria-current'),
      'page',
      'the section is in the menu, marked as the current page',
    );
  });

  test('the filter bar: key and status class, in the URL', async () => {
    await h.page.getByLabel('Key').fill(keyA.id);
    await h.page.getByLabel('Status').fill('4xx');
    await h.page.getByRole('button', { name: 'Filter' }).click();
    await h.page.waitForURL((url) => url.searchParams.get('status') === '4xx');
    await rows().nth(1).waitFor({ state: 'detached' });
    await rows().first().waitFor();
    assert.equal(await rows().count(), 1);
    assert.match(await textOf(rows().first()), /GET \/v1\/pets\/999999999[\s\S]*404 not_found/);

    await h.page.getByLabel('Method').selectOption('POST');
    await h.page.getByRole('button', { name: 'Filter' }).click();
    await h.page.getByText('No requests.').waitFor();
    await h.page.goBack();
    await rows().first().waitFor();
    assert.equal(await h.page.getByLabel('Key').inputValue(), keyA.id, 'the filter is in the URL');
    await inspectPage(h.page, 'requests-filtered');
  });

  test('export downloads the filter as CSV and NDJSON', async () => {
    for (const [button, format] of [
      ['CSV', 'csv'],
      ['NDJSON', 'ndjson'],
    ] as const) {
      const [download] = await Promise.all([
        h.page.waitForEvent('download'),
        h.page.getByRole('button', { name: button }).click(),
      ]);
      assert.equal(download.suggestedFilename(), `requests.${format}`);
      const text = await readFile((await download.path()) ?? '', 'utf8');
      const lines = text.trim().split('\n');
      assert.equal(lines.length, format === 'csv' ? 2 : 1, `${format}: the one row of the filter`);
      assert.match(text, new RegExp(missingId));
      assert.doesNotMatch(text, new RegExp(keyA.key), 'no key in an export');
    }
  });

  test('the live tail shows a new request; Pause stops it and Resume brings what waited', async () => {
    await h.open(`/console/requests?key=${keyA.id}`);
    await rows().first().waitFor();
    await h.page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const polls: Request[] = [];
    h.page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/admin/v1/requests') polls.push(request);
    });

    await send(keyA.key, '/v1/pets/4242');
    await rowOf('/v1/pets/4242').waitFor();
    assert.equal(await textOf(rows().first()).then((text) => text.includes('/v1/pets/4242')), true, 'on top');
    assert.ok(polls.length > 0);
    for (const poll of polls)
      assert.equal(poll.headers()['x-petstore-background'], 'true', 'the tail is a background refresh');
    // The tail leaves out the page's own reads of the log.
    assert.equal(await rowOf('/admin/v1/requests').count(), 0);

    await h.page.getByRole('button', { name: 'Pause' }).click();
    await h.page.getByRole('status').filter({ hasText: 'Paused' }).waitFor();
    const before = polls.length;
    await send(keyA.key, '/v1/pets/4343');
    // Paused, the page asks nothing: no poll comes within three tails' worth of time.
    const poll = await h.page
      .waitForRequest((request) => new URL(request.url()).pathname === '/admin/v1/requests', {
        timeout: TAIL_MS * 3,
      })
      .catch(() => null);
    assert.equal(poll, null, 'no poll while paused');
    assert.equal(polls.length, before, 'no poll while paused');
    assert.equal(await rowOf('/v1/pets/4343').count(), 0, 'nothing new shown while paused');
    await inspectPage(h.page, 'requests-paused');

    await h.page.getByRole('button', { name: 'Resume' }).click();
    await rowOf('/v1/pets/4343').waitFor();
  });

  test("a request's detail: every field, its id copyable, and links to its key", async () => {
    await h.open(`/console/requests?key=${keyA.id}&status=404`);
    await rowOf('/v1/pets/999999999').getByRole('link', { name: 'GET /v1/pets/999999999' }).click();
    await h.page.getByRole('heading', { name: 'GET /v1/pets/999999999', level: 1 }).waitFor();
    const facts = await textOf(h.page.locator('dl.facts'));
    assert.match(facts, new RegExp(`Request id\\s+${missingId}`));
    assert.match(facts, /Route\s+\/v1\/pets\/\{petId\}/);
    assert.match(facts, /Error code\s+not_found/);
    assert.match(facts, /Instance\s+\S+/);
    assert.doesNotMatch(await textOf(h.page.locator('main')), new RegExp(keyA.key), 'no secret shown');
    // Before Copy: once clicked, the existing copy button reads "Copied" under its "Copy …" name for 3 s.
    await inspectPage(h.page, 'request-detail');
    await h.page.getByRole('button', { name: 'Copy the request id' }).click();
    assert.equal(await h.page.evaluate('navigator.clipboard.readText()'), missingId);
    const audit = h.page.getByRole('link', { name: 'The key’s audit' });
    assert.equal(await audit.getAttribute('href'), `/console/audit?target=${keyA.id}`);
    assert.equal(
      await h.page.getByRole('link', { name: 'The key’s usage' }).getAttribute('href'),
      `/console/usage?key=${keyA.id}`,
    );

    await h.page.getByRole('link', { name: `The key ${keyA.id}` }).click();
    await h.page.getByRole('heading', { name: 'Alpha', level: 1 }).waitFor();
    // The key's page leads back to its requests.
    await h.page.getByRole('link', { name: 'Its requests' }).click();
    await h.page.waitForURL((url) => url.searchParams.get('key') === keyA.id);
    await rowOf('/v1/pets/999999999').waitFor();
    assert.equal(await rowOf(keyB.id).count(), 0, 'only the key’s requests');
  });

  test('a pasted request id and Enter open that request at once; an unknown one says so', async () => {
    await h.open('/console/requests');
    await rows().first().waitFor();
    await h.page.getByRole('textbox', { name: 'Request id' }).fill(missingId);
    await h.page.getByRole('textbox', { name: 'Request id' }).press('Enter');
    const heading = h.page.getByRole('heading', { name: 'GET /v1/pets/999999999', level: 1 });
    await heading.waitFor();
    assert.equal(new URL(h.page.url()).pathname, `/console/requests/${missingId}`);

    await h.open('/console/requests/no-such-request');
    await h.page.getByRole('heading', { name: 'Not found' }).waitFor();
    assert.match(await textOf(h.page.locator('main')), /No request no-such-request is in the request log/);
  });

  test("a usage bucket leads to its requests: the key's, in that hour", async () => {
    await h.open(`/console/usage?key=${keyA.id}`);
    await h.page.getByRole('heading', { name: `Usage of ${keyA.id}` }).waitFor();
    const table = h.page.getByRole('table', { name: 'Requests per hour, last 48 hours' });
    const link = table.locator('tbody tr').last().getByRole('link');
    const target = new URL((await link.getAttribute('href')) ?? '', h.server.url);
    assert.equal(target.pathname, '/console/requests');
    assert.equal(target.searchParams.get('key'), keyA.id);
    const from = Date.parse(target.searchParams.get('from') ?? '');
    assert.equal(Date.parse(target.searchParams.get('to') ?? '') - from, 3600_000, 'an hour');
    await h.open(`${target.pathname}${target.search}`);
    await rowOf('/v1/pets/999999999').waitFor();
    assert.equal(await h.page.getByRole('button', { name: 'Pause' }).count(), 0, 'an hour past has no tail');
  });

  test('ids and paths break only after a / or a -, and the Status column is as wide as its status', async () => {
    // What made the table squeeze them: client-chosen UUIDs, long paths, long error messages, admin calls.
    const uuid = randomUUID();
    const long = await h.server.call('/v1/categories', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${keyB.key}`,
        'content-type': 'application/json',
        'x-request-id': uuid,
      },
      body: JSON.stringify({ nom: 'a field that is not one of the category’s' }),
    });
    assert.equal(long.status, 400);
    await send(keyB.key, '/v1/pets/a-pet-id-that-is-not-a-number-at-all');
    const missing = await h.server.admin(h.token, '/webhooks/we_0123456789abcdef0123/deliveries', {
      headers: { 'x-request-id': randomUUID() },
    });
    assert.equal(missing.status, 404);
    await h.open('/console/requests?api=all');
    await h.page.locator(`main tbody tr[data-request-id="${uuid}"]`).waitFor();
    await rowOf('/admin/v1/webhooks/we_0123456789abcdef0123/deliveries').waitFor();
    await h.page.getByRole('button', { name: 'Pause' }).click();

    for (const width of [1280, 390]) {
      await h.page.setViewportSize({ width, height: 900 });
      const broken = (await h.page.evaluate(
        breaksWithin('main tbody th code, main tbody td[data-label="Request id"] code'),
      )) as string[];
      assert.deepEqual(broken, [], `at ${width} px, broken mid-word`);
    }
    await h.page.setViewportSize({ width: 1280, height: 900 });
    // The lines the id's characters are on (a <wbr> has a box of no width, at a height of its own).
    const uuidLines = await h.page.evaluate(`(() => {
      const code = document.querySelector('main tbody tr[data-request-id="${uuid}"] td[data-label="Request id"] code');
      return new Set([...code.getClientRects()].filter((box) => box.width > 0).map((box) => Math.round(box.top))).size;
    })()`);
    assert.equal(uuidLines, 1, 'a UUID stays whole where there is room');
    // The Status column holds the status alone: as wide as the widest badge, each on one line.
    const { cell, badge, lines } = (await h.page.evaluate(`(() => {
      const cells = [...document.querySelectorAll('main tbody td[data-label="Status"]')];
      const padding = (cell) => parseFloat(getComputedStyle(cell).paddingLeft) + parseFloat(getComputedStyle(cell).paddingRight);
      return {
        cell: Math.max(...cells.map((cell) => cell.clientWidth - padding(cell))),
        badge: Math.max(...cells.map((cell) => {
          const badge = cell.querySelector('.badge');
          const style = getComputedStyle(badge);
          return badge.getBoundingClientRect().width + parseFloat(style.marginLeft) + parseFloat(style.marginRight);
        })),
        lines: Math.max(...cells.map((cell) => cell.querySelector('.badge').getClientRects().length)),
      };
    })()`)) as { cell: number; badge: number; lines: number };
    assert.equal(lines, 1, 'a status on one line');
    assert.ok(cell <= badge + 2, `the Status column is ${cell} px wide for a status of ${badge} px`);
    // The error's message is shown still, with its request.
    assert.match(
      await textOf(rowOf('/v1/categories').filter({ hasText: '400' }).first()),
      /name is required/,
    );
    await inspectPage(h.page, 'requests-wrapping');
  });

  test("the list is the API's traffic; the admin API's calls, the console's among them, when chosen", async () => {
    const ofAdmin = await h.server.admin(h.token, '/keys');
    const adminId = ofAdmin.headers.get('x-request-id') as string;
    await h.open('/console/requests');
    const api = h.page.getByLabel('API', { exact: true });
    assert.equal(await api.locator('option:checked').textContent(), 'The API (/v1)');
    await rows().first().waitFor();
    // A request after the admin call, seen by the tail: the admin call was there to be seen too.
    await send(keyA.key, '/v1/pets/5151');
    await rowOf('/v1/pets/5151').waitFor();
    assert.equal(await h.page.locator(`main tbody tr[data-request-id="${adminId}"]`).count(), 0);
    const paths = async () =>
      (await h.page.locator('main tbody th code').allInnerTexts()).map((text) => text.trim());
    assert.ok(
      (await paths()).every((path) => / \/v1\//.test(path)),
      (await paths()).join('\n'),
    );

    await api.selectOption({ label: 'The admin API (/admin/v1)' });
    await h.page.getByRole('button', { name: 'Filter' }).click();
    await h.page.waitForURL((url) => url.searchParams.get('api') === 'admin');
    await h.page.locator(`main tbody tr[data-request-id="${adminId}"]`).waitFor();
    assert.ok(
      (await paths()).every((path) => / \/admin\/v1\//.test(path)),
      (await paths()).join('\n'),
    );
    assert.equal(await rowOf('/v1/pets/5151').count(), 0);
    await inspectPage(h.page, 'requests-admin');

    await h.page.getByLabel('API', { exact: true }).selectOption({ label: 'Both' });
    await h.page.getByRole('button', { name: 'Filter' }).click();
    await h.page.waitForURL((url) => url.searchParams.get('api') === 'all');
    await rowOf('/v1/pets/5151').waitFor();
    await h.page.locator(`main tbody tr[data-request-id="${adminId}"]`).waitFor();
  });

  test('nothing failed', () => {
    assert.deepEqual(h.failures, []);
  });
});
