import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { startClosing } from './closing.js';
import { startTestServer, type TestServer } from './server.js';

/** Debian's chromium; CI installs it (`.ci/run`), so a missing browser is a failure, never a skip. */
export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];
/** The repository's `test-artifacts/`, from `dist/test/support/`. */
export const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));

/**
 * How long a test waits for Redoc to render a reference page: a bound on a wait for its `data-rendered`
 * mark, never a pause. /docs/admin's 22,900 elements took 16 s here on a quiet machine and over 30 s with
 * two full suites and more beside it (2 vCPUs), so the bound leaves room for a slow CI machine.
 */
export const REDOC_RENDER_MS = 120_000;

export const MISSING_BROWSER = `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium), as .ci/run does`;

/**
 * Starts Debian's chromium, headless; fails with how to install it when it is missing. `extraArgs` are added
 * to its command line (such as `--host-resolver-rules` to reach a custom domain on loopback).
 */
export function launchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
  assert.ok(existsSync(CHROMIUM), MISSING_BROWSER);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS, ...extraArgs],
  });
}

/** A server, Chromium, and its pages watched (`watch`) on the server's origin, as a reader of its pages. */
export interface WatchedBrowser {
  server: TestServer;
  browser: Browser;
  /** The first page, on nothing yet. */
  page: Page;
  /** Everything that went wrong in any of its pages. */
  failures: string[];
  /** Another page, watched as the first. */
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Starts a server and Chromium with a watched page. */
export function startWatchedBrowser(): Promise<WatchedBrowser> {
  return startClosing(async (keep) => {
    const server = keep(await startTestServer());
    const browser = keep(await launchBrowser());
    const origin = new URL(server.url).origin;
    const failures: string[] = [];
    const newPage = async () => {
      const page = await browser.newPage();
      await watch(page, origin, failures);
      return page;
    };
    return { server, browser, page: await newPage(), failures, newPage };
  });
}

/** The text of the element a selector finds, as the reader sees it (hidden parts left out). */
export function shownText(page: Page, selector: string): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's rendered text is what these tests assert.
  return page.locator(selector).innerText();
}

/** The text of what a locator finds, as the reader sees it. */
export function textOf(locator: Locator): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's rendered text is what these tests assert.
  return locator.innerText();
}

/**
 * Watches a page for anything that went wrong: console errors, uncaught exceptions, failed requests, answers
 * of 400 and above (but those `expected` says a test asks for on purpose), and requests to any origin but
 * the server's, which are blocked: the page must work in a browser that can reach nothing else.
 */
export async function watch(
  page: Page,
  origin: string,
  failures: string[],
  expected: (status: number, url: string) => boolean = () => false,
): Promise<void> {
  await page.route('**/*', async (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    failures.push(`request outside ${origin}: ${url}`);
    return route.abort('blockedbyclient');
  });
  page.on('console', (message) => {
    if (message.type() === 'error' && !expectedError(message.text(), message.location().url, expected))
      failures.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => failures.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText ?? 'unknown';
    // A navigation cancels the requests in flight of the page it leaves: abandoned, not failed.
    if (reason !== 'net::ERR_ABORTED') failures.push(`request failed: ${request.url()} (${reason})`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400 && !expected(response.status(), response.url()))
      failures.push(`answer ${response.status()}: ${response.url()}`);
  });
}

/** Chromium logs every answer of 400 and above as a console error; those a test expects are not failures. */
function expectedError(
  text: string,
  url: string,
  expected: (status: number, url: string) => boolean,
): boolean {
  const logged = /^Failed to load resource: the server responded with a status of (\d+)/.exec(text);
  return logged !== null && expected(Number(logged[1]), url);
}
