import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { shownText, textOf } from '../support/browser.js';
import { type ConsoleHarness, DNS_TARGET, inspectPage, startConsoleAt } from './harness.js';

const DOMAIN = 'docs.shop.test';

/** The text the clipboard holds, as the page would read it. */
const clipboard = (h: ConsoleHarness) => h.page.evaluate('navigator.clipboard.readText()') as Promise<string>;

describe('Project settings → Domains in the console', () => {
  let h: ConsoleHarness;

  before(async () => {
    h = await startConsoleAt('/console/domains');
  });
  after(() => h?.close());

  const badge = (state: string) => h.page.locator('.title-row .badge', { hasText: state }).waitFor();

  test('an apex says it needs an ALIAS or ANAME record', async () => {
    await h.page.getByLabel('Domain or subdomain').fill('shop.test');
    assert.match(await shownText(h.page, '#domain-apex'), /needs an ALIAS or ANAME record/);
    await h.page.getByLabel('Domain or subdomain').fill(DOMAIN);
    assert.equal(await shownText(h.page, '#domain-apex'), '');
  });

  test('Add domain leads to its records, each with a copy button and TTL 3600', async () => {
    await h.page.getByRole('button', { name: 'Add', exact: true }).click();
    await h.page.getByRole('heading', { level: 1, name: DOMAIN }).waitFor();
    assert.equal(new URL(h.page.url()).pathname, `/console/domains/${DOMAIN}`);
    await badge('Pending');
    const records = await shownText(h.page, 'table:has(caption:text("DNS records to add")) tbody');
    assert.match(records, new RegExp(`CNAME\\s+${DOMAIN}[\\s\\S]*${DNS_TARGET}[\\s\\S]*3600`));
    assert.match(
      records,
      new RegExp(`TXT\\s+_petstore-challenge\\.${DOMAIN}[\\s\\S]*3600[\\s\\S]*Proves you own`),
    );

    await h.page.getByRole('button', { name: 'Copy the CNAME value' }).click();
    assert.equal(await clipboard(h), DNS_TARGET);
    await h.page.getByRole('button', { name: 'Copy the CNAME name' }).click();
    assert.equal(await clipboard(h), DOMAIN);
  });

  test('Verify shows the reason and the fix; with the DNS right, Re-verify makes it verified', async () => {
    await h.page.getByRole('button', { name: 'Verify', exact: true }).click();
    await h.page.getByRole('button', { name: 'Re-verify' }).waitFor();
    const check = await shownText(h.page, '.check');
    assert.match(check, new RegExp(`${DOMAIN.replaceAll('.', '\\.')} has no CNAME record`));
    assert.match(check, new RegExp(`How to fix: Add the record ${DOMAIN.replaceAll('.', '\\.')} CNAME`));

    h.dns.zone.set(DOMAIN, { CNAME: DNS_TARGET });
    await h.page.getByRole('button', { name: 'Re-verify' }).click();
    await badge('Verified');
    await h.open('/console/domains');
    await h.page.locator('tr', { hasText: DOMAIN }).locator('.badge', { hasText: 'Verified' }).waitFor();
  });

  test('the state changes on screen, without a reload, when a check elsewhere changes it', async () => {
    await h.page.getByRole('link', { name: DOMAIN }).click();
    await badge('Verified');
    h.dns.zone.set(DOMAIN, { CNAME: 'elsewhere.test' });
    const checked = await h.server.admin(h.token, `/domains/${DOMAIN}/verify`, { method: 'POST' });
    assert.notEqual((checked.body as { state: string }).state, 'verified');
    // The page asks again every 5 seconds while it is visible.
    await h.page
      .locator('.title-row .badge', { hasText: 'Verified' })
      .waitFor({ state: 'detached', timeout: 8000 });
    h.dns.zone.set(DOMAIN, { CNAME: DNS_TARGET });
  });

  test('the menu next to the domain → Remove, confirmed, says that its DNS still points here', async () => {
    await h.open('/console/domains');
    await h.page.getByRole('button', { name: `Actions for ${DOMAIN}` }).click();
    await h.page.getByRole('menuitem', { name: 'Remove' }).click();
    const dialog = h.page.getByRole('dialog', { name: `Remove ${DOMAIN}?` });
    assert.match(await textOf(dialog), /stops at once/);
    await dialog.getByRole('button', { name: 'Remove domain' }).click();
    await h.page.getByText(/Its DNS still points here: remove its record/).waitFor();
    await h.page.getByText('No custom domains yet.').waitFor();
    assert.equal((await h.server.admin(h.token, `/domains/${DOMAIN}`)).status, 404);
  });

  test('the menu and its dialog work with the keyboard, and Escape cancels', async () => {
    await h.server.admin(h.token, '/domains', { method: 'POST', json: { name: 'kept.shop.test' } });
    await h.page.getByRole('link', { name: 'kept.shop.test' }).waitFor();
    await h.page.getByRole('button', { name: 'Actions for kept.shop.test' }).focus();
    await h.page.keyboard.press('Enter');
    // Opening the menu moves focus to its first item, as the keyboard user sees it.
    // A locator, not waitForFunction: its polling evaluates strings in the page, which the CSP refuses.
    await h.page.locator('[role="menuitem"]:focus').waitFor();
    await h.page.keyboard.press('Enter');
    await h.page.getByRole('dialog').waitFor();
    await h.page.keyboard.press('Escape');
    await h.page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.equal((await h.server.admin(h.token, '/domains/kept.shop.test')).status, 200);
  });

  test('nothing failed', () => {
    assert.deepEqual(h.failures, []);
  });
});

describe('Domains in the console of a service with no DOMAINS_TARGET', () => {
  let h: ConsoleHarness;

  before(async () => {
    h = await startConsoleAt('/console/domains', () => false, { target: null });
  });
  after(() => h?.close());

  const missingTarget =
    /No DNS target is set[\s\S]*DOMAINS_TARGET[\s\S]*only its ownership TXT record can be shown/;

  test('the page says so before any domain is added: what the operator sets, and what can be shown until then', async () => {
    await h.page.getByText('No custom domains yet.').waitFor();
    // The notice comes with the service's settings, a request of its own that may answer after the list's.
    await h.page.locator('main').getByText('No DNS target is set').waitFor();
    assert.match(await textOf(h.page.locator('main')), missingTarget);
    await inspectPage(h.page, 'domains-no-target');
  });

  test('a domain added anyway shows its TXT record alone, and says why there is no CNAME', async () => {
    await h.page.getByLabel('Domain or subdomain').fill(DOMAIN);
    await h.page.getByRole('button', { name: 'Add', exact: true }).click();
    await h.page.getByRole('heading', { level: 1, name: DOMAIN }).waitFor();
    const records = h.page.locator('section:has(#dns-heading)');
    await records.getByText('No DNS target is set').waitFor();
    assert.match(await textOf(records), missingTarget);
    const rows = await textOf(records.locator('tbody'));
    assert.match(rows, /TXT/);
    assert.doesNotMatch(rows, /CNAME|ALIAS/);
    await inspectPage(h.page, 'domain-no-target');
  });

  test('nothing failed', () => {
    assert.deepEqual(h.failures, []);
  });
});
