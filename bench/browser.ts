/**
 * The browser benches' method (bench:console, bench:reference): runs in Debian's chromium, each in a fresh
 * browser context, so that nothing is cached, and times reported as their median and slowest.
 */
import type { Page } from 'playwright-core';
import { launchBrowser } from '../test/support/browser.js';
import { onCleanup } from './processes.js';
import { median } from './report.js';

/**
 * Runs `measure` `runs` + 1 times, each on a page of a fresh context, then closes the browser. The first run is
 * for the caller to report apart: it pays the warm-up of the browser and the service, as later ones do not.
 */
export async function inFreshContexts(runs: number, measure: (page: Page) => Promise<void>): Promise<void> {
  const browser = await launchBrowser();
  onCleanup(() => void browser.close());
  for (let run = 0; run <= runs; run += 1) {
    const context = await browser.newContext();
    await measure(await context.newPage());
    await context.close();
  }
  await browser.close();
}

/** Times in milliseconds, in words: their median and the slowest. */
export const summary = (times: number[]) => `median ${median(times)} ms, slowest ${Math.max(...times)} ms`;
