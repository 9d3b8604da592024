import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { assertAccessible } from '../console/harness.js';
import { ARTIFACTS } from './browser.js';

/** The widths a page is checked at: a laptop and a phone. */
export const WIDTHS = [1280, 390] as const;

/** Waits until the browser has laid out and painted the page twice: a resize is then drawn. */
export const nextFrames = (page: Page) =>
  page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');

/** How wide the page is against the window, and the first (outermost) element that reaches past its edge. */
function sideways(page: Page): Promise<{ scrollWidth: number; innerWidth: number; past: string }> {
  // The element is named, so that a failure says what to fix.
  return page.evaluate(`(() => {
    const past = [...document.querySelectorAll('body *')].find(
      (element) => element.getBoundingClientRect().right > window.innerWidth + 0.5,
    );
    const name = past ? past.tagName.toLowerCase() + [...past.classList].map((name) => '.' + name).join('') : '';
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, past: name };
  })()`);
}

/**
 * A page as a reader sees it at 1280 and at 390 pixels wide: it never scrolls sideways, axe finds no serious
 * or critical violation, and it is photographed into test-artifacts/<folder>/<name>-<width>.png.
 */
export async function inspectPage(
  page: Page,
  folder: string,
  name: string,
  { fullPage = true }: { fullPage?: boolean } = {},
): Promise<void> {
  const screens = `${ARTIFACTS}${folder}/`;
  mkdirSync(screens, { recursive: true });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await nextFrames(page);
    const { scrollWidth, innerWidth, past } = await sideways(page);
    assert.ok(
      scrollWidth <= innerWidth,
      `${name} at ${width} px scrolls sideways: scrollWidth ${scrollWidth} > ${innerWidth} (first past the edge: ${past})`,
    );
    await assertAccessible(page, `${name} at ${width} px`);
    await page.screenshot({ path: `${screens}${name}-${width}.png`, fullPage });
  }
  await page.setViewportSize({ width: WIDTHS[0], height: 900 });
  await nextFrames(page);
}
