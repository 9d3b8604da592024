/**
 * `npm run bench:reference`: the reference's budgets (issue 33). What `/docs` and `/docs/key` download,
 * gzipped (the page and every file it names, and the document `/docs` renders), beside what `/docs` downloaded
 * with Redoc alone; and the first render of `/docs` on loopback, against 1.5 s: in Debian's chromium, each run
 * in a fresh browser context (nothing cached), from navigation until Redoc has rendered, and until the Try it
 * buttons are on it. The service runs as users run it (`petstore serve`, embedded). Reports the median and
 * the slowest of BENCH_RUNS runs (5), after one run reported apart: the first pays the warm-up of the browser
 * and the service.
 */
import os from 'node:os';
import { gzipSync } from 'node:zlib';
import { inFreshContexts, summary } from './browser.js';
import { startEmbedded } from './deployments.js';
import { runBench, scratchDir } from './processes.js';
import { positiveInteger } from './settings.js';

const log = (line: string) => process.stdout.write(`${line}\n`);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
/** What the panel adds to `/docs`; the rest is what Redoc alone downloaded. */
const PANEL = /\/docs\/assets\/try-it\./;

/** The gzipped size of a page and of every file it names (scripts, styles), each fetched once. */
async function downloads(url: string, page: string, extra: string[]): Promise<Map<string, number>> {
  const html = await (await fetch(`${url}${page}`)).text();
  const paths = new Set([page, ...extra]);
  for (const match of html.matchAll(/<(?:script|link)[^>]+(?:src|href)="(\/[^"]+)"/g))
    if (match[1] !== undefined) paths.add(match[1]);
  const sizes = new Map<string, number>();
  for (const name of paths)
    sizes.set(
      name.split('?')[0] ?? name,
      gzipSync(Buffer.from(await (await fetch(`${url}${name}`)).arrayBuffer())).length,
    );
  return sizes;
}

const total = (sizes: Map<string, number>, keep: (name: string) => boolean = () => true) =>
  [...sizes].filter(([name]) => keep(name)).reduce((sum, [, size]) => sum + size, 0);

async function main(): Promise<number> {
  const runs = positiveInteger('BENCH_RUNS', 5);
  const dir = scratchDir(os.tmpdir(), 'petstore-bench-reference-');
  const service = await startEmbedded(dir, undefined);
  const url = service.servers[0]?.url ?? '';

  const docs = await downloads(url, '/docs', ['/openapi.json']);
  for (const [name, size] of docs) log(`  ${name}: ${kb(size)} gzipped`);
  log(
    `/docs downloads ${kb(total(docs))} gzipped; without the try-it panel ${kb(total(docs, (name) => !PANEL.test(name)))}`,
  );
  const key = await downloads(url, '/docs/key', []);
  log(`/docs/key downloads ${kb(total(key))} gzipped`);

  const rendered: number[] = [];
  const buttons: number[] = [];
  await inFreshContexts(runs, async (page) => {
    const started = Date.now();
    await page.goto(`${url}/docs`);
    await page.locator('#redoc[data-rendered]').waitFor({ timeout: 30_000 });
    rendered.push(Date.now() - started);
    await page.locator('.try-it-open').first().waitFor();
    buttons.push(Date.now() - started);
  });
  log(
    `the first run, cold: Redoc rendered in ${rendered.shift()} ms, the Try it buttons in ${buttons.shift()} ms`,
  );
  log(`/docs first render: ${summary(rendered)} (budget 1500 ms)`);
  log(`/docs with its Try it buttons: ${summary(buttons)}`);
  return Math.max(...rendered) <= 1500 ? 0 : 1;
}

runBench('bench:reference', main);
