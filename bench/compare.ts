/**
 * `npm run bench:compare`: this build against another, side by side, for the paired before/after figures a
 * change to the request path owes (BENCHMARKS.md). BENCH_BASELINE names the other build's checkout (its
 * `dist/` built, as `npm ci` leaves it: a `git worktree` of the commit before, say). Both run the embedded
 * service as users run it (defaults: access log on), seeded with the same 100 categories, each pinned to
 * CPU 0 and wrk to CPU 1, each warmed up; then BENCH_PAIRS pairs of runs on the list, the two builds turn
 * about within each pair (baseline first in odd pairs, this build first in even ones), and the verdict is
 * the median of the pairs' ratios, with the server CPU per request and the p99 latency of each, and each build's own work
 * per request: its CPU less that of bare Fastify sending the same bytes, run within the same pair. Creates per second come after,
 * in alternating rounds. Bounded: about 2 minutes with the defaults.
 *
 * Environment: BENCH_BASELINE (required), BENCH_PAIRS (12), BENCH_SECONDS (3), BENCH_WARMUP_SECONDS (2),
 * BENCH_CONNECTIONS (50), BENCH_CREATE_ROUNDS (2), BENCH_TMPDIR, and BENCH_BASELINE_ENV: settings of the
 * baseline's environment, `NAME=value,NAME=value`, to price a setting on one build (BENCH_BASELINE=. with
 * BENCH_BASELINE_ENV=REQUEST_LOG=off: the request log's cost), and BENCH_SERVER_CPUS (`0`; `0,1` lets a
 * server's helper threads, the request log's writer, run on the CPU that wrk uses too).
 */
import fs from 'node:fs';
import path from 'node:path';
import { LOAD_CPU, SERVER_CPU } from './cpu.js';
import {
  countRows,
  type Embedded,
  fetchList,
  firstServer,
  seed,
  startEmbedded,
  stopDeployment,
} from './deployments.js';
import {
  anchorTargetOf,
  measureAnswered,
  measureOnce,
  type Run,
  type Target,
  targetOf,
  warmUp,
} from './measure.js';
import { runBench, scratchDir, stopChild } from './processes.js';
import { costUs, median } from './report.js';
import { startAnchor } from './servers.js';
import { checkPrerequisites, positiveInteger, shortRunSettings } from './settings.js';
import type { WrkResult } from './wrk.js';

const log = (line: string) => process.stdout.write(`${line}\n`);

/** The other build's CLI, checked: a checkout whose `dist/` is built. */
function baselineCli(): string {
  const root = process.env.BENCH_BASELINE;
  if (root === undefined || root === '') {
    throw new Error('BENCH_BASELINE must name the checkout of the build to compare with (its dist/ built)');
  }
  const cli = path.resolve(root, 'dist', 'src', 'cli', 'main.js');
  if (!fs.existsSync(cli)) throw new Error(`${cli} is missing: run npm ci (or npm run build) in ${root}`);
  return cli;
}

/** BENCH_BASELINE_ENV as variables: `REQUEST_LOG=off,ACCESS_LOG=off`. */
function baselineEnv(): Record<string, string> {
  const text = process.env.BENCH_BASELINE_ENV ?? '';
  if (text === '') return {};
  return Object.fromEntries(
    text.split(',').map((pair) => {
      const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(pair.trim());
      if (match === null) throw new Error(`BENCH_BASELINE_ENV takes NAME=value,NAME=value (got ${pair})`);
      return [match[1], match[2]];
    }),
  );
}

async function main(): Promise<number> {
  const settings = shortRunSettings();
  const pairs = positiveInteger('BENCH_PAIRS', 12);
  const createRounds = positiveInteger('BENCH_CREATE_ROUNDS', 2);
  checkPrerequisites(settings);
  const cli = baselineCli();
  const dir = scratchDir(settings.tmpdir, 'petstore-bench-compare-');
  log(
    `bench:compare: this build against ${path.dirname(path.dirname(path.dirname(cli)))} ${JSON.stringify(baselineEnv())}; servers on CPU ${SERVER_CPU}, wrk -c${settings.connections} on CPU ${LOAD_CPU}, ${pairs} pairs of ${settings.seconds} s`,
  );

  const baseline = await startEmbedded(dir, undefined, { name: 'baseline', env: baselineEnv(), cli });
  const current = await startEmbedded(dir, undefined, { name: 'this build', env: {} });
  const services = [baseline, current] as const;
  for (const service of services) await seed(service);
  const [before, after] = await Promise.all(
    services.map((service) => fetchList(service, firstServer(service))),
  );
  if (before === undefined || after === undefined || !before.body.equals(after.body)) {
    throw new Error('the two builds do not answer the same list body: nothing to compare');
  }
  const get: Run = { script: 'get' };
  const targets = services.map((service) => targetOf(dir, service)) as [Target, Target];
  for (const target of targets) await warmUp(settings, target, get);
  // Bare Fastify sending the same bytes, run within each pair: each build's own work is its CPU less this.
  const fastify = await startAnchor(dir, 'fastify-anchor', after.body, { headers: after.headers }, 'fastify');
  const fastifyTarget = anchorTargetOf(dir, 'bare Fastify', fastify, current.key);
  await warmUp(settings, fastifyTarget, get);

  const ratios: number[] = [];
  const us: [number[], number[]] = [[], []];
  const ownWork: [number[], number[]] = [[], []];
  const p99: [number[], number[]] = [[], []];
  for (let pair = 0; pair < pairs; pair += 1) {
    // Turn about, so that neither build always runs second (on a machine that drifts within a pair).
    const order = pair % 2 === 0 ? [0, 1] : [1, 0];
    const runs: WrkResult[] = [];
    for (const index of order) {
      const run = await measureAnswered(
        settings,
        targets[index] as Target,
        get,
        (services[index] as Embedded).name,
      );
      runs[index] = run;
      us[index as 0 | 1].push(costUs(run));
      p99[index as 0 | 1].push(run.p99Ms);
    }
    const [old, fresh] = runs as [WrkResult, WrkResult];
    const bare = costUs(await measureOnce(settings, fastifyTarget, get));
    ownWork[0].push(costUs(old) - bare);
    ownWork[1].push(costUs(fresh) - bare);
    ratios.push(fresh.rps / old.rps);
    log(
      `pair ${pair + 1}: baseline ${Math.round(old.rps)} req/s (${costUs(old).toFixed(1)} us), this build ${Math.round(fresh.rps)} req/s (${costUs(fresh).toFixed(1)} us): ratio ${(fresh.rps / old.rps).toFixed(3)}; bare Fastify ${bare.toFixed(1)} us`,
    );
  }

  const creates: [number[], number[]] = [[], []];
  const create: Run = { script: 'create' };
  for (let round = 0; round < createRounds; round += 1) {
    for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const service = services[index] as Embedded;
      const rows = await countRows(service);
      const result = await measureOnce({ ...settings, seconds: 5 }, targets[index] as Target, create);
      const created = result.statuses.get(201) ?? 0;
      if (created !== result.requests || (await countRows(service)) - rows < created) {
        throw new Error(`${service.name} create: ${created} 201s of ${result.requests}`);
      }
      creates[index as 0 | 1].push(result.rps);
      log(`create round ${round + 1} ${service.name}: ${Math.round(result.rps)} creates/s`);
    }
  }
  for (const service of services) await stopDeployment(service);
  await stopChild(fastify.child);

  log('');
  log(
    `list, this build / baseline: ${median(ratios).toFixed(3)} (median of ${pairs} pairs; pairs ${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)})`,
  );
  log(
    `server CPU per list request: baseline ${median(us[0]).toFixed(1)} us, this build ${median(us[1]).toFixed(1)} us`,
  );
  log(
    `own work per list request (CPU less bare Fastify's in the same pair): baseline ${median(ownWork[0]).toFixed(1)} us, this build ${median(ownWork[1]).toFixed(1)} us (${(median(ownWork[1]) / median(ownWork[0])).toFixed(2)} of it)`,
  );
  log(
    `list p99 at ${settings.connections} connections: baseline ${median(p99[0]).toFixed(2)} ms, this build ${median(p99[1]).toFixed(2)} ms (medians of the pairs)`,
  );
  log(`creates/s: baseline ${Math.round(median(creates[0]))}, this build ${Math.round(median(creates[1]))}`);
  return 0;
}

runBench('bench:compare', main);
