/**
 * `npm run bench:observability`: what the access log and tracing cost, on the list and on creates. Four
 * configurations of the embedded service run side by side: everything off (`ACCESS_LOG=off`), the default
 * (access log on, tracing off), and tracing on as well, every request sampled or one in ten (spans exported
 * over OTLP/HTTP to a sink that keeps nothing). Method (BENCHMARKS.md, and issue 21's): every server pinned to
 * CPU 0 and wrk to CPU 1, each server warmed up once, then many short pairs of runs, the bare `node:http`
 * anchor answering the list's identical bytes and then one configuration, turn about; each figure is the
 * median of its pair ratios, beside the server CPU per request, and each cost the median of the pairs'
 * differences from everything off. Creates are measured per configuration in alternating rounds. Bounded:
 * about 6 minutes with the defaults.
 *
 * Environment: BENCH_PAIRS (8) pairs per configuration, BENCH_SECONDS (3) per run, BENCH_WARMUP_SECONDS (2),
 * BENCH_CONNECTIONS (50), BENCH_CREATE_ROUNDS (2), BENCH_TMPDIR.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOAD_CPU, SERVER_CPU } from './cpu.js';
import {
  assertSameList,
  countRows,
  type Embedded,
  fetchList,
  firstServer,
  seed,
  startEmbedded,
  stopDeployment,
} from './deployments.js';
import { request } from './http.js';
import {
  anchorTargetOf,
  measureAnswered,
  measureOnce,
  type Run,
  type Target,
  targetOf,
  warmUp,
} from './measure.js';
import { runBench, scratchDir, spawnPinned, waitForLine } from './processes.js';
import { costUs, cpuNote, median } from './report.js';
import { startAnchor } from './servers.js';
import { checkPrerequisites, positiveInteger, shortRunSettings } from './settings.js';

const log = (line: string) => process.stdout.write(`${line}\n`);
const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Starts the OTLP sink on the load CPU, beside wrk: what it spends is not the service's. */
async function startSink(): Promise<string> {
  const child = spawnPinned(LOAD_CPU, process.execPath, [path.join(HERE, 'otlp-sink.js')]);
  return waitForLine(child, /otlp sink listening on (http:\/\/\S+)/, 10_000);
}

interface Configuration {
  name: string;
  env: Record<string, string>;
}

/**
 * The median over the pairs of `a - b`, each pair's figures taken minutes apart at most: the drift of the
 * machine over the whole benchmark cancels out, as it would not in the difference of two medians.
 */
const pairedMedian = (a: number[], b: number[]) =>
  median(a.map((value, pair) => value - (b[pair] ?? Number.NaN)));

/** One configuration's list pairs: its run and the anchor run just before it. */
interface Pairs {
  ratios: number[];
  serviceUs: number[];
  anchorUs: number[];
}

async function main(): Promise<number> {
  const settings = shortRunSettings();
  const pairs = positiveInteger('BENCH_PAIRS', 8);
  const createRounds = positiveInteger('BENCH_CREATE_ROUNDS', 2);
  checkPrerequisites(settings);
  const dir = scratchDir(settings.tmpdir, 'petstore-bench-obs-');
  log(
    `bench:observability: servers on CPU ${SERVER_CPU}, wrk -c${settings.connections} and the OTLP sink on CPU ${LOAD_CPU}, ${pairs} pairs of ${settings.seconds} s per configuration`,
  );

  const sink = await startSink();
  const configurations: Configuration[] = [
    { name: 'all off', env: { ACCESS_LOG: 'off' } },
    { name: 'access log', env: {} },
    { name: 'access log + tracing', env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink } },
    {
      name: 'tracing, 1 in 10',
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: sink,
        OTEL_TRACES_SAMPLER: 'traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
      },
    },
  ];
  const services: Embedded[] = [];
  for (const configuration of configurations) {
    const service = await startEmbedded(dir, undefined, configuration);
    await seed(service);
    services.push(service);
  }
  const [reference] = services as [Embedded];
  const list = await fetchList(reference, firstServer(reference));
  for (const service of services) await assertSameList(service, list);
  const anchor = await startAnchor(dir, 'anchor', list.body, {
    headers: list.headers,
    ...(list.keepAliveSeconds === undefined ? {} : { keepAliveSeconds: list.keepAliveSeconds }),
  });
  const get: Run = { script: 'get' };
  const targets: Target[] = [];
  for (const service of services) {
    const target = targetOf(dir, service);
    await warmUp(settings, target, get);
    targets.push(target);
  }
  const anchorTarget = anchorTargetOf(dir, 'anchor', anchor, reference.key);
  await warmUp(settings, anchorTarget, get);

  const measured: Pairs[] = services.map(() => ({ ratios: [], serviceUs: [], anchorUs: [] }));
  for (let pair = 0; pair < pairs; pair += 1) {
    for (const [index, target] of targets.entries()) {
      const anchorRun = await measureOnce(settings, anchorTarget, get);
      const run = await measureAnswered(settings, target, get, (services[index] as Embedded).name);
      const entry = measured[index] as Pairs;
      entry.ratios.push(run.rps / anchorRun.rps);
      entry.serviceUs.push(costUs(run));
      entry.anchorUs.push(costUs(anchorRun));
      log(
        `pair ${pair + 1} ${(services[index] as Embedded).name}: ratio ${(run.rps / anchorRun.rps).toFixed(2)} (${cpuNote(run)}; anchor ${costUs(anchorRun).toFixed(1)} us)`,
      );
    }
  }

  const creates: number[][] = services.map(() => []);
  const createP99: number[][] = services.map(() => []);
  const create: Run = { script: 'create' };
  for (let round = 0; round < createRounds; round += 1) {
    // Turn about, so that no configuration always meets the fullest file.
    const order = round % 2 === 0 ? [...targets.keys()] : [...targets.keys()].reverse();
    for (const index of order) {
      const service = services[index] as Embedded;
      const before = await countRows(service);
      const result = await measureOnce({ ...settings, seconds: 5 }, targets[index] as Target, create);
      const added = (await countRows(service)) - before;
      const created = result.statuses.get(201) ?? 0;
      if (created !== result.requests || added < created) {
        throw new Error(`${service.name} create: ${created} 201s of ${result.requests}, ${added} rows added`);
      }
      creates[index]?.push(result.rps);
      createP99[index]?.push(result.p99Ms);
      log(
        `create round ${round + 1} ${service.name}: ${Math.round(result.rps)} creates/s p99 ${result.p99Ms.toFixed(2)}ms`,
      );
    }
  }
  const exported = JSON.parse((await request(sink)).body.toString('utf8')) as {
    exports: number;
    bytes: number;
  };
  for (const service of services) await stopDeployment(service);

  const off = measured[0] as Pairs;
  log('');
  log(
    'configuration        | list ratio (median of pairs) | server CPU/req | paired cost vs off     | creates/s (p99)',
  );
  for (const [index, service] of services.entries()) {
    const figures = measured[index] as Pairs;
    const ratio = median(figures.ratios);
    const us = median(figures.serviceUs);
    const cost =
      index === 0
        ? '-'
        : `${pairedMedian(off.ratios, figures.ratios).toFixed(3)} ratio, ${pairedMedian(figures.serviceUs, off.serviceUs).toFixed(1)} us`;
    log(
      `${service.name.padEnd(21)}| ${ratio.toFixed(2)} (pairs ${Math.min(...figures.ratios).toFixed(2)}-${Math.max(...figures.ratios).toFixed(2)})`.padEnd(
        53,
      ) +
        `| ${us.toFixed(1)} us`.padEnd(17) +
        `| ${cost}`.padEnd(25) +
        `| ${Math.round(median(creates[index] ?? []))} (${median(createP99[index] ?? []).toFixed(2)} ms)`,
    );
  }
  log(`anchor (bare node:http, identical bytes): ${median(off.anchorUs).toFixed(1)} us per request`);
  log(`OTLP sink received ${exported.exports} exports, ${(exported.bytes / 1e6).toFixed(1)} MB`);
  if (exported.exports === 0) {
    log('PROBLEM the tracing configuration exported no span');
    return 1;
  }
  return 0;
}

runBench('bench:observability', main);
