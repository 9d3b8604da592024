import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { API_VERSION } from '../../src/contract/index.js';
import { shownText } from '../support/browser.js';
import { type ConsoleHarness, focused, inspectPage, signIn, startConsole, tabTo } from './harness.js';

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const MARKUP_NAME = '<script>alert(1)</script>"><img src=x onerror=alert(1)>';
const UNKNOWN_KEY = 'key_000000000000';

/**
 * The answers these tests ask for on purpose: a wrong token, the domains page (its domains and its settings)
 * of a session that has ended, and a key that does not exist.
 */
const expected = (status: number, url: string) =>
  (status === 401 &&
    ['/admin/v1/sessions', '/admin/v1/domains', '/admin/v1/domain-settings'].some((path) =>
      url.endsWith(path),
    )) ||
  (status === 404 && url.endsWith(`/admin/v1/keys/${UNKNOWN_KEY}`));

describe('the console in a real browser', () => {
  let h: ConsoleHarness;
  const dialogs: string[] = [];

  before(async () => {
    h = await startConsole(expected);
    h.page.on('dialog', async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
  });
  after(async () => {
    await h?.close();
  });

  const heading = (name: string) => h.page.getByRole('heading', { level: 1, name }).waitFor();

  test('every path below /console is the page, with a strict CSP, never framed', async () => {
    for (const path of ['/console', '/console/domains/docs.example.com', '/console/keys/key_3fK9x2LmQ8aZ']) {
      const response = await fetch(`${h.server.url}${path}`);
      assert.equal(response.status, 200, path);
      assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(response.headers.get('content-security-policy'), CSP);
      assert.equal(response.headers.get('x-frame-options'), 'DENY');
      assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
      assert.equal(response.headers.get('cache-control'), 'no-cache');
      const html = await response.text();
      assert.match(html, new RegExp(`<html lang="en" data-version="${API_VERSION}" data-token-signin="on">`));
      assert.doesNotMatch(html, /<script>|<style>|style="/, 'nothing inline');
    }
    const html = await (await fetch(`${h.server.url}/console`)).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((match) => match[1]);
    assert.equal(assets.length, 2);
    for (const asset of assets) {
      const response = await fetch(`${h.server.url}${asset}`);
      assert.equal(response.status, 200, asset);
      assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable', asset);
    }
    assert.equal((await fetch(`${h.server.url}/console/assets/missing.js`)).status, 404);
  });

  test('sign in: the token is traded for a session cookie and kept nowhere', async () => {
    await h.open('/console/keys');
    await heading('Pet Store console');
    await inspectPage(h.page, 'sign-in');
    // Signing in is all this page is for: its field has the focus, as a sign-in page's should.
    await focused(h.page.getByLabel('Admin token'));

    await h.page.getByLabel('Admin token').fill('ps_admin_wrong');
    await h.page.getByRole('button', { name: 'Sign in' }).click();
    await h.page.getByRole('alert').waitFor();

    await signIn(h.page, h.token);
    await heading('API keys');
    // The root tsconfig has no DOM types: the browser side is written as an expression.
    const kept = (await h.page.evaluate(`({
      local: JSON.stringify(localStorage),
      session: JSON.stringify(sessionStorage),
      cookies: document.cookie,
      url: location.href,
      field: document.querySelector('input[type="password"]')?.value ?? '',
    })`)) as Record<string, string>;
    for (const [where, text] of Object.entries(kept)) assert.ok(!text.includes(h.token), where);
    assert.equal(kept.cookies, '', 'the session cookie is HttpOnly');
    assert.match(
      await shownText(h.page, 'footer'),
      new RegExp(`Pet Store API ${API_VERSION.replaceAll('.', '\\.')}`),
    );
    // The footer links the console's guide, which the server serves.
    const guide = await h.page.locator('footer a').getAttribute('href');
    assert.equal(guide, '/docs/guides/keys-and-admin-api#console');
    const answer = await fetch(new URL(guide, h.page.url()));
    assert.equal(answer.status, 200);
    assert.match(await answer.text(), /<h2 id="console">Console<\/h2>/);
  });

  test('the nav, back and forward, and a reload of a linked page', async () => {
    await h.page.getByRole('navigation').getByRole('link', { name: 'Usage' }).click();
    await heading('Usage');
    assert.equal(new URL(h.page.url()).pathname, '/console/usage');
    await h.page.getByRole('navigation').getByRole('link', { name: 'Audit' }).click();
    await heading('Audit log');
    await h.page.goBack();
    await heading('Usage');
    await h.page.goBack();
    await heading('API keys');
    await h.page.goForward();
    await heading('Usage');
    await h.page.reload();
    await heading('Usage');
    assert.equal(
      await h.page.getByRole('link', { name: 'Usage', exact: true }).getAttribute('aria-current'),
      'page',
    );
  });

  test('a path that names no page, and a key that does not exist, are the 404 page', async () => {
    await h.open('/console/nowhere/at/all');
    await heading('Not found');
    await inspectPage(h.page, 'not-found');
    await h.open(`/console/keys/${UNKNOWN_KEY}`);
    await heading('Not found');
    assert.match(await shownText(h.page, 'main'), new RegExp(`The key ${UNKNOWN_KEY} does not exist`));
  });

  test('a key name of markup is shown as text, and runs nothing', async () => {
    const { id } = await h.server.createKey({ plan: 'pro', name: MARKUP_NAME });
    await h.open('/console/keys');
    await h.page.getByRole('link', { name: MARKUP_NAME }).waitFor();
    await h.page.getByRole('link', { name: MARKUP_NAME }).click();
    await heading(MARKUP_NAME);
    assert.equal(new URL(h.page.url()).pathname, `/console/keys/${id}`);
    assert.equal(await h.page.locator('main img').count(), 0);
    assert.equal(await h.page.locator('main script').count(), 0);
    assert.deepEqual(dialogs, []);
  });

  test('each page passes axe and never scrolls sideways, at 1280 and 390 pixels (photographed)', async () => {
    const { id, key } = await h.server.createKey({ plan: 'business', name: 'Storefront' });
    // Some traffic, so that the charts have something to draw.
    for (const path of ['/v1/categories', '/v1/categories', '/v1/pets', '/v1/pets/999999999'])
      await h.server.call(path, { headers: { authorization: `Bearer ${key}` } });
    await h.server.deps.recorder.flush();
    await h.server.admin(h.token, '/domains', {
      method: 'POST',
      json: { name: 'docs.example.test', primary: true },
    });
    const pages: [string, string, string][] = [
      ['/console/domains', 'Domains', 'domains'],
      ['/console/domains/docs.example.test', 'docs.example.test', 'domain'],
      ['/console/keys', 'API keys', 'keys'],
      [`/console/keys/${id}`, 'Storefront', 'key'],
      ['/console/usage', 'Usage', 'usage'],
      ['/console/audit', 'Audit log', 'audit'],
    ];
    for (const [path, title, name] of pages) {
      await h.open(path);
      await heading(title);
      // The data a page shows arrives after its heading.
      await h.page.waitForLoadState('networkidle');
      await inspectPage(h.page, name);
    }
  });

  test('a session that ends elsewhere sends the console back to sign-in, saying why', async () => {
    // As a Sign out elsewhere would (the session's own two secrets): the cookie is refused from now on.
    assert.equal(
      await h.page.evaluate(
        "fetch('/admin/v1/sessions/current', { method: 'DELETE', headers: { 'x-petstore-session': sessionStorage.getItem('petstore.session') } }).then((r) => r.ok)",
      ),
      true,
    );
    await h.page.getByRole('navigation').getByRole('link', { name: 'Domains' }).click();
    await heading('Pet Store console');
    await h.page.getByText('Your session ended; sign in again.').waitFor();
    await signIn(h.page, h.token);
    await heading('Domains');
  });

  test('sign out ends the session: a reload shows the sign-in page', async () => {
    await h.page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Pet Store console');
    await h.page.reload();
    await heading('Pet Store console');
    await h.page.getByLabel('Admin token').waitFor();
  });

  test('with the keyboard alone: sign in, then create a key', async () => {
    await h.open('/console/keys');
    await focused(h.page.getByLabel('Admin token'));
    await h.page.keyboard.type(h.token);
    await h.page.keyboard.press('Enter');
    await heading('API keys');
    await tabTo(h.page, 'Skip to content');
    await h.page.keyboard.press('Enter');
    assert.equal(await h.page.evaluate('document.activeElement.id'), 'main', 'the skip link moves focus');
    await tabTo(h.page, 'Create key');
    await h.page.keyboard.press('Enter');
    // The form that opened has the focus, on its first field: the keyboard goes on from there.
    await focused(h.page.getByLabel('Name', { exact: true }));
    await h.page.keyboard.type('Typed by keyboard');
    await tabTo(h.page, 'Create key');
    await h.page.keyboard.press('Enter');
    await h.page.getByText('It will not be shown again').waitFor();
    await h.page.getByRole('link', { name: 'Typed by keyboard' }).waitFor();
  });

  test('nothing failed: no console error, no CSP violation, nothing asked outside the server', () => {
    assert.deepEqual(h.failures, []);
  });
});
