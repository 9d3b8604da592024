/**
 * `npm run bench`: the list and create benchmarks of the real service, loaded by wrk on 127.0.0.1 only,
 * with the method of BENCHMARKS.md: bare `node:http` anchors in the same run, rounds of anchors, service,
 * service answering 304 and the two-instance deployment alternated, the servers on CPU 0 and wrk on CPU 1,
 * 50 keep-alive connections, the median of per-round ratios. Every request sends the bearer key of an
 * unlimited enterprise key created with the CLI, as a client would. Rounds in which other processes took
 * more than 10% of a CPU are left out of the medians (the machine may be shared), and server CPU time per
 * request is reported beside requests/s because other processes barely move it. Every server is loaded
 * once as soon as it starts, so that none meets its first load after an idle spell (see firstLoad); the
 * nextTick line times the flaw behind that, with and without the service's remedy (tick-cost.ts).
 *
 * Three anchors: the issue's, answering the identical bytes (the service's headers and body; the ratio
 * target is to it); one answering the body with its content type alone, which shows how much of the
 * difference is the API's required headers written by Node rather than the service's own work; and a bare
 * Fastify app answering the identical bytes, which shows how much of it the framework takes before any
 * hook of ours runs.
 *
 * Two deployments, side by side in the final table: the embedded mode (one process, SQLite, limits in
 * process) and the scale-out mode (two instances sharing a fresh PostgreSQL database and a Redis prefix,
 * both removed at the end, whatever happens).
 *
 * Bounded: about 5 minutes with the defaults. Environment overrides:
 *   BENCH_SECONDS (10) and BENCH_WARMUP_SECONDS (2) per run, BENCH_ROUNDS (3), BENCH_CONNECTIONS (50),
 *   BENCH_SCALE (on; off skips the two-instance mode), BENCH_POSTGRES_URL (an admin URL,
 *   postgres://postgres@127.0.0.1:5432/postgres), BENCH_REDIS_URL (redis://127.0.0.1:6379),
 *   BENCH_TMPDIR (the OS temp dir; put it on the disk whose durability you mean to measure),
 *   BENCH_CPU_PROFILE_DIR (unset; when set, each service process writes a --cpu-prof profile there on exit).
 */
import path from 'node:path';
import { postgresDurability } from './backends.js';
import { backgroundLoad, LOAD_CPU, SERVER_CPU } from './cpu.js';
import {
  assertDeploymentRunning,
  assertSameList,
  countRows,
  type Embedded,
  fetchList,
  firstServer,
  type ListSnapshot,
  type Scaled,
  seed,
  sharedLimitProblems,
  staleListProblem,
  startEmbedded,
  startScaled,
  stopDeployment,
} from './deployments.js';
import { diskFlushCounter, isWalFile } from './durability.js';
import { anchorTargetOf, measure, measureOnce, type Run, type Target, targetOf, warmUp } from './measure.js';
import { runBench, scratchDir, stopChild } from './processes.js';
import {
  type CreateOutcome,
  cpuNote,
  createProblems,
  type Durability,
  type ListRound,
  listProblems,
  roundLine,
} from './report.js';
import { assertRunning, type Server, startAnchor } from './servers.js';
import { checkPrerequisites, readSettings, type Settings } from './settings.js';
import { table } from './table.js';
import { measureTickCosts, tickCostsText } from './tick-costs.js';

const log = (line: string) => process.stdout.write(`${line}\n`);

interface Targets {
  anchor: Target;
  bodyAnchor: Target;
  fastifyAnchor: Target;
  service: Target;
  scaled: Target | undefined;
}

async function listRound(settings: Settings, targets: Targets, list: ListSnapshot): Promise<ListRound> {
  const get: Run = { script: 'get' };
  const conditional: Run = { ...get, headers: [`If-None-Match: ${list.etag}`] };
  const round: ListRound = {
    anchor: await measure(settings, targets.anchor, get),
    notModifiedAnchor: await measure(settings, targets.anchor, conditional),
    bodyAnchor: await measure(settings, targets.bodyAnchor, get),
    fastifyAnchor: await measure(settings, targets.fastifyAnchor, get),
    notModifiedFastify: await measure(settings, targets.fastifyAnchor, conditional),
    service: await measure(settings, targets.service, get),
    notModified: await measure(settings, targets.service, conditional),
  };
  if (targets.scaled !== undefined) round.scaled = await measure(settings, targets.scaled, get);
  return round;
}

async function listRounds(
  settings: Settings,
  deployments: { anchors: Server[]; embedded: Embedded; scaled: Scaled | undefined },
  targets: Targets,
  list: ListSnapshot,
): Promise<ListRound[]> {
  const rounds: ListRound[] = [];
  for (let i = 0; i < settings.rounds; i += 1) {
    for (const anchor of deployments.anchors) assertRunning(anchor, 'anchor');
    assertDeploymentRunning(deployments.embedded);
    if (deployments.scaled !== undefined) assertDeploymentRunning(deployments.scaled);
    const round = await listRound(settings, targets, list);
    log(roundLine(i, round));
    rounds.push(round);
  }
  return rounds;
}

/** The disk-flush counter of a directory's disk; undefined where it cannot be read (another user's files). */
function flushCounterOf(dir: string): (() => number) | undefined {
  try {
    return diskFlushCounter(dir);
  } catch {
    return undefined;
  }
}

/** What makes the deployment's creates durable, and the directory whose disk sees their flushes. */
function durabilityOf(deployment: Embedded | Scaled): { durability: Durability; dataDir: string } {
  if ('databaseUrl' in deployment) {
    const { dataDirectory, ...settings } = postgresDurability(deployment.databaseUrl);
    return { durability: { kind: 'postgres', ...settings }, dataDir: dataDirectory };
  }
  const durability: Durability = { kind: 'sqlite', walFile: isWalFile(deployment.file) };
  return { durability, dataDir: path.dirname(deployment.file) };
}

async function createRun(
  settings: Settings,
  deployment: Embedded | Scaled,
  target: Target,
): Promise<CreateOutcome> {
  const create: Run = { script: 'create' };
  await warmUp(settings, target, create);
  const { durability, dataDir } = durabilityOf(deployment);
  const flushCounter = flushCounterOf(dataDir);
  const rowsBefore = await countRows(deployment);
  const flushesBefore = flushCounter?.();
  const result = await measureOnce(settings, target, create);
  const flushesAfter = flushCounter?.();
  // Requests still in flight when wrk stopped may have committed without wrk seeing their 201, so the rows
  // added may exceed the 201s, never fall short of them.
  const rowsAdded = (await countRows(deployment)) - rowsBefore;
  const otherStatuses = new Map([...result.statuses].filter(([status]) => status !== 201));
  log(
    `${deployment.name} create: ${Math.round(result.rps)} creates/s p99 ${result.p99Ms.toFixed(2)}ms (${cpuNote(result)})`,
  );
  return {
    result,
    created201: result.statuses.get(201) ?? 0,
    otherStatuses,
    rowsAdded,
    durability,
    flushes:
      flushesBefore === undefined || flushesAfter === undefined ? undefined : flushesAfter - flushesBefore,
  };
}

/**
 * Loads a server as soon as it is started and seeded, before it can sit idle, and returns its target. On
 * Node 20 a process that idles until V8's memory reducer collects loses the maps of its nextTick objects,
 * and from then on every nextTick takes the runtime's slow path: a bare node:http server stays up to a
 * fifth slower for the rest of its life (the nextTick line measures the tick alone). The service keeps a tick
 * object against it (src/app/tick-shape.ts); the anchors do not, being bare, and the ratio is to them at
 * their best. One fresh process can still run slower than another; its CPU time per request in the round
 * lines tells which state a run met.
 */
async function firstLoad(settings: Settings, target: Target): Promise<Target> {
  await warmUp(settings, target, { script: 'get' });
  return target;
}

/** Starts the two instances on the embedded service's list, so that the one anchor serves both. */
async function startScaledOnSameList(settings: Settings, list: ListSnapshot): Promise<Scaled | undefined> {
  if (settings.scale === undefined) return undefined;
  const scaled = await startScaled(settings.scale, settings.cpuProfileDir);
  await seed(scaled);
  await assertSameList(scaled, list);
  log(`${scaled.name}: ${scaled.servers.map((server) => server.url).join(' and ')}, same list bytes`);
  return scaled;
}

/** The two instances' creates, and the checks that need them still running. */
async function scaledCreateRun(
  settings: Settings,
  scaled: Scaled | undefined,
  target: Target | undefined,
): Promise<{ create: CreateOutcome | undefined; problems: string[] }> {
  if (scaled === undefined || target === undefined) return { create: undefined, problems: [] };
  const create = await createRun(settings, scaled, target);
  const stale = await staleListProblem(scaled);
  const problems = [...(await sharedLimitProblems(scaled)), ...(stale === undefined ? [] : [stale])];
  await stopDeployment(scaled);
  return { create, problems: [...createProblems(scaled.name, create), ...problems] };
}

async function main(): Promise<number> {
  const settings = readSettings();
  checkPrerequisites(settings);
  const dir = scratchDir(settings.tmpdir, 'petstore-bench-');

  log(
    `bench: wrk -c${settings.connections} (one thread per server) on CPU ${LOAD_CPU}, servers on CPU ${SERVER_CPU}, ${settings.rounds} rounds of ${settings.warmupSeconds}+${settings.seconds} s, data in ${dir}`,
  );
  // Why an idle server could lose a fifth of its speed, and what the service does about it (see firstLoad).
  const ticks = await measureTickCosts();
  log(`nextTick: ${tickCostsText(ticks)}`);
  const embedded = await startEmbedded(dir, settings.cpuProfileDir);
  await seed(embedded);
  const service = await firstLoad(settings, targetOf(dir, embedded));
  const list = await fetchList(embedded, firstServer(embedded));
  const scaled = await startScaledOnSameList(settings, list);
  const scaledTarget = scaled === undefined ? undefined : await firstLoad(settings, targetOf(dir, scaled));
  // The anchor answers the identical bytes: the service's headers and body. The second shows what
  // the API's required headers (request id, rate limits, ETag, nosniff, no-store) cost in Node alone; the
  // third, the identical bytes from bare Fastify, what the framework costs before any hook of ours.
  const identicalAnswer = {
    headers: list.headers,
    ...(list.keepAliveSeconds === undefined ? {} : { keepAliveSeconds: list.keepAliveSeconds }),
    notModified: { etag: list.etag, headers: list.notModifiedHeaders },
  };
  const anchors = {
    identical: await startAnchor(dir, 'anchor', list.body, identicalAnswer),
    bodyOnly: await startAnchor(dir, 'body-anchor', list.body, {
      headers: { 'content-type': list.contentType },
    }),
    fastify: await startAnchor(dir, 'fastify-anchor', list.body, identicalAnswer, 'fastify'),
  };
  log(`list: ${list.body.length} bytes, ETag ${list.etag}, ${Object.keys(list.headers).length} headers`);
  // The anchors get the same request bytes, key included, and ignore them.
  const anchorTarget = (name: string, server: Server) =>
    firstLoad(settings, anchorTargetOf(dir, name, server, embedded.key));
  const targets: Targets = {
    anchor: await anchorTarget('anchor', anchors.identical),
    bodyAnchor: await anchorTarget('body-anchor', anchors.bodyOnly),
    fastifyAnchor: await anchorTarget('fastify-anchor', anchors.fastify),
    service,
    scaled: scaledTarget,
  };

  // Other processes on the machine disturb the figures; measuring them idle tells the reader how much.
  const idleBefore = await backgroundLoad(2000);
  const anchorServers = [anchors.identical, anchors.bodyOnly, anchors.fastify];
  const rounds = await listRounds(settings, { anchors: anchorServers, embedded, scaled }, targets, list);
  for (const anchor of anchorServers) await stopChild(anchor.child);
  const create = await createRun(settings, embedded, targets.service);
  await stopDeployment(embedded);
  const scaledCreate = await scaledCreateRun(settings, scaled, targets.scaled);
  const idleAfter = await backgroundLoad(2000);

  const settingsLine = `wrk -c${settings.connections} --latency, one thread per server, ${settings.seconds} s runs`;
  log(
    `\n${table({ rounds, create, scaledCreate: scaledCreate.create, ticks, idle: [idleBefore, idleAfter], settings: settingsLine })}`,
  );
  const problems = [
    ...listProblems(rounds, list.body.length),
    ...createProblems(embedded.name, create),
    ...scaledCreate.problems,
  ];
  for (const problem of problems) log(`PROBLEM ${problem}`);
  if (settings.cpuProfileDir !== undefined) log(`CPU profiles of the services in ${settings.cpuProfileDir}`);
  // Missed speed targets are figures to read; wrong answers, lost rows or stale lists make the run fail.
  return problems.length === 0 ? 0 : 1;
}

runBench('bench', main);
