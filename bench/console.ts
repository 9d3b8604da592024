/**
 * `npm run bench:console`: the console's budgets (issue 32). Its JavaScript and CSS, gzipped, against 150 KB;
 * and its first page's time to usable on loopback, against 1 s: in Debian's chromium, each run in a fresh
 * browser context (nothing cached), from navigation until the sign-in form can be typed in, and, signed
 * in, from a reload until the keys list shows its keys. The service runs as users run it (`petstore
 * serve`, embedded), with 20 keys. Reports the median and the slowest of BENCH_RUNS runs (5), after one run
 * reported apart: the first after the service and the browser start pays their warm-up (a renderer
 * process, the server's first compilations), which an operator's browser and a running service do not.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { inFreshContexts, summary } from './browser.js';
import { startEmbedded } from './deployments.js';
import { runBench, runToCompletion, scratchDir, spawnTracked } from './processes.js';
import { CLI } from './servers.js';
import { positiveInteger } from './settings.js';

const log = (line: string) => process.stdout.write(`${line}\n`);
const BUILT = fileURLToPath(new URL('../console/', import.meta.url));
const KEYS = 20;

/** An admin token, made by the CLI as an operator makes one, on the storage `env` names. */
async function adminToken(env: Record<string, string>): Promise<string> {
  const child = spawnTracked(process.execPath, [CLI, 'admin-tokens', 'create', '--name', 'bench', '--json'], {
    env: { ...process.env, ...env },
  });
  const { code, stdout, stderr } = await runToCompletion(child);
  if (code !== 0) throw new Error(`petstore admin-tokens create failed (exit code ${code}):\n${stderr}`);
  return (JSON.parse(stdout) as { token: string }).token;
}

async function main(): Promise<number> {
  const runs = positiveInteger('BENCH_RUNS', 5);
  let gzipped = 0;
  for (const name of ['app.js', 'app.css'])
    gzipped += gzipSync(fs.readFileSync(path.join(BUILT, name))).length;
  log(`console JavaScript + CSS: ${(gzipped / 1024).toFixed(1)} KB gzipped (budget 150 KB)`);

  const dir = scratchDir(os.tmpdir(), 'petstore-bench-console-');
  const service = await startEmbedded(dir, undefined);
  const url = service.servers[0]?.url ?? '';
  const token = await adminToken({ DATABASE_URL: `sqlite:${service.file}` });
  for (let made = 0; made < KEYS; made += 1) {
    await fetch(`${url}/admin/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'pro', name: `key ${made}` }),
    });
  }

  const signInPage: number[] = [];
  const keysPage: number[] = [];
  await inFreshContexts(runs, async (page) => {
    let started = Date.now();
    await page.goto(`${url}/console/keys`);
    await page.getByLabel('Admin token').waitFor();
    signInPage.push(Date.now() - started);
    await page.getByLabel('Admin token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: `key ${KEYS - 1}` }).waitFor();
    started = Date.now();
    await page.reload();
    await page.getByRole('link', { name: `key ${KEYS - 1}` }).waitFor();
    keysPage.push(Date.now() - started);
  });
  const [coldSignIn, coldKeys] = [signInPage.shift(), keysPage.shift()];
  log(`the first run, cold: the sign-in form in ${coldSignIn} ms, the keys list in ${coldKeys} ms`);
  log(`first page usable, the sign-in form: ${summary(signInPage)} (budget 1000 ms)`);
  log(`signed in, a reload of the keys list until its keys show: ${summary(keysPage)}`);
  return Math.max(...signInPage, ...keysPage) <= 1000 && gzipped <= 150 * 1024 ? 0 : 1;
}

runBench('bench:console', main);
