import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { ARTIFACTS, launchBrowser, watch } from '../support/browser.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** Where the custom domains of these tests must point; the test DNS server resolves it. */
export const DNS_TARGET = 'edge.console.test';
const SCREENS = `${ARTIFACTS}console/`;
const WIDTHS = [1280, 390] as const;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Reports every Content-Security-Policy violation as a console error, which `watch` turns into a failure:
 * Chromium logs most of them itself, but not all (a report-only header, a violation in a worker).
 */
const REPORT_CSP = `document.addEventListener('securitypolicyviolation', (event) => {
  console.error('CSP violation: ' + event.violatedDirective + ' ' + event.blockedURI);
});`;

export interface ConsoleHarness {
  server: TestServer;
  dns: TestDnsServer;
  /** An admin token, as `petstore admin-tokens create` makes it. */
  token: string;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Everything that went wrong in any page: console errors, CSP violations, failed or refused requests. */
  failures: string[];
  /** Opens a path of the server in the page. */
  open(path: string, page?: Page): Promise<void>;
  /** A new page in the same browser context (same cookies), watched as the first. */
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/**
 * A real server (SQLite) whose domains are checked against a real DNS server, and Chromium with a page on
 * it; `target` is its `DOMAINS_TARGET` (null: unset), `env` the rest of its environment. `expected` names
 * the answers of 400 and above a test asks for on purpose: a 401 from `GET /admin/v1/sessions/current` is
 * how the console learns nobody is signed in.
 */
export async function startConsole(
  expected: (status: number, url: string) => boolean = () => false,
  { target = DNS_TARGET, env = {} }: { target?: string | null; env?: Record<string, string> } = {},
): Promise<ConsoleHarness> {
  const dns = await startDnsServer(new Map([[DNS_TARGET, { A: ['127.0.0.1'] }]]));
  const server = await startTestServer({
    ...(target === null ? {} : { DOMAINS_TARGET: target }),
    DNS_RESOLVER: dns.address,
    ...env,
  });
  const { token } = await server.createAdminToken('console test');
  const browser = await launchBrowser();
  const origin = new URL(server.url).origin;
  const context = await browser.newContext({ viewport: { width: WIDTHS[0], height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  await context.addInitScript(REPORT_CSP);
  const failures: string[] = [];
  const signedOut = (status: number, url: string) =>
    (status === 401 && url.endsWith('/admin/v1/sessions/current')) || expected(status, url);

  const newPage = async () => {
    const page = await context.newPage();
    await watch(page, origin, failures, signedOut);
    return page;
  };
  const page = await newPage();
  return {
    server,
    dns,
    token,
    browser,
    context,
    page,
    failures,
    async open(path, target = page) {
      await target.goto(`${server.url}${path}`);
    },
    newPage,
    async close() {
      await browser.close();
      await server.close();
      await dns.close();
    },
  };
}

/** `startConsole`, with the page at `path` and signed in with the harness's token; closed again if that fails. */
export async function startConsoleAt(
  path: string,
  expected?: (status: number, url: string) => boolean,
  options?: { target?: string | null; env?: Record<string, string> },
): Promise<ConsoleHarness> {
  const h = await startConsole(expected, options);
  try {
    await h.open(path);
    await signIn(h.page, h.token);
    return h;
  } catch (error) {
    await h.close();
    throw error;
  }
}

/** Signs in through the form, as a person would, and waits for the console's header. */
export async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/**
 * Makes an admin token on the Admin tokens page open in `page`, as a person would, and answers it: shown this
 * once, in the token's form.
 */
export async function createTokenOnPage(page: Page, name: string, role: string): Promise<string> {
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Role').selectOption(role);
  await page.getByRole('button', { name: 'Create token' }).click();
  await page.getByText('It will not be shown again').waitFor();
  const token = (await page.locator('[data-testid="new-key"]').textContent())?.trim() ?? '';
  assert.match(token, /^ps_admin_[0-9A-Za-z]{32}$/);
  return token;
}

/** Runs axe-core on the page as it is: a serious or critical violation fails, naming the rule and the nodes. */
export async function assertAccessible(page: Page, name: string): Promise<void> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern: a script tag would be
  // inline script, which it refuses (and the test would report as a violation).
  await page.evaluate(AXE);
  // The root tsconfig has no DOM types: the browser side is written as an expression.
  const violations = (await page.evaluate(`axe.run().then((results) => results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => violation.id + ': ' + violation.help + ' at ' +
      violation.nodes.map((node) => node.target.join(' ')).join(', ')))`)) as string[];
  assert.deepEqual(violations, [], `axe on ${name}`);
}

/** Screenshots of the whole page at 1280 and 390 pixels wide, into test-artifacts/console/. */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENS, { recursive: true });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    // The charts follow their container's width a frame later.
    await page.waitForTimeout(150);
    await page.screenshot({ path: `${SCREENS}${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: WIDTHS[0], height: 900 });
}

/** How wide the page is against the window, and the first element that reaches past its edge and widens it. */
function sideways(page: Page): Promise<{ scrollWidth: number; innerWidth: number; past: string }> {
  // The element is named, so that a failure says what to fix.
  return page.evaluate(`(() => {
    // Within a part that scrolls or clips on its own, an element does not widen the page; but an absolutely
    // positioned one is clipped only from its containing block (its offsetParent) up.
    const clipped = (element) => {
      const absolute = getComputedStyle(element).position === 'absolute';
      for (let up = absolute ? element.offsetParent : element.parentElement; up && up !== document.body; up = up.parentElement)
        if (getComputedStyle(up).overflowX !== 'visible') return true;
      return false;
    };
    const past = [...document.querySelectorAll('body *')].find(
      (element) => element.getBoundingClientRect().right > window.innerWidth + 0.5 && !clipped(element),
    );
    const name = past ? past.tagName.toLowerCase() + [...past.classList].map((name) => '.' + name).join('') : '';
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, past: name };
  })()`);
}

/**
 * A page as an operator sees it at 1280 and at 390 pixels wide: it never scrolls sideways, axe finds no
 * serious or critical violation, and it is photographed (test-artifacts/console/).
 */
export async function inspectPage(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENS, { recursive: true });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    // The charts follow their container's width a frame later.
    await page.waitForTimeout(150);
    const { scrollWidth, innerWidth, past } = await sideways(page);
    assert.ok(
      scrollWidth <= innerWidth,
      `${name} at ${width} px scrolls sideways: scrollWidth ${scrollWidth} > ${innerWidth} (first past the edge: ${past})`,
    );
    await assertAccessible(page, `${name} at ${width} px`);
    await page.screenshot({ path: `${SCREENS}${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: WIDTHS[0], height: 900 });
}

/**
 * Waits until what the locator finds has the focus (focus moves once the page has drawn it), for at most 5 s.
 * A locator, not `waitForFunction`: the console's CSP refuses the string evaluation that would need.
 */
export async function focused(locator: Locator): Promise<void> {
  await locator.and(locator.page().locator(':focus')).waitFor({ timeout: 5000 });
}

/** Presses Tab until the focused element has the accessible name (or label) given; fails after `most` presses. */
export async function tabTo(page: Page, name: string | RegExp, most = 40): Promise<void> {
  for (let press = 0; press < most; press += 1) {
    await page.keyboard.press('Tab');
    const focused = (await page.evaluate(`(() => {
      const element = document.activeElement;
      if (element === null) return '';
      const name = element.getAttribute('aria-label') ?? element.labels?.[0]?.textContent ?? element.textContent;
      return (name ?? '').trim();
    })()`)) as string;
    if (typeof name === 'string' ? focused === name : name.test(focused)) return;
  }
  assert.fail(`Tab never reached ${String(name)}`);
}
