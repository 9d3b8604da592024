/**
 * `npm run bench`: the list and create benchmarks of the real service, loaded by wrk on 127.0.0.1 only,
 * with the method of BENCHMARKS.md: a bare `node:http` anchor in the same run, rounds of anchor, service
 * and service answering 304 alternated, the server on CPU 0 and wrk on CPU 1, 50 keep-alive connections,
 * the median of per-round ratios. Rounds in which other processes took more than 10% of a CPU are left
 * out of the medians (the machine may be shared), and server CPU time per request is reported beside
 * requests/s because other processes barely move it.
 *
 * Bounded: about 2 minutes 15 seconds with the defaults. Environment overrides:
 *   BENCH_SECONDS (10) and BENCH_WARMUP_SECONDS (2) per run, BENCH_ROUNDS (3), BENCH_CONNECTIONS (50),
 *   BENCH_TMPDIR (the OS temp dir; put it on the disk whose durability you mean to measure),
 *   BENCH_CPU_PROFILE_DIR (unset; when set, the service writes a --cpu-prof profile there on exit).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { backgroundLoad, LOAD_CPU, SERVER_CPU } from './cpu.js';
import { diskFlushCounter, isWalFile } from './durability.js';
import { request } from './http.js';
import { cleanUpNow, commandExists, installCleanupHandlers, onCleanup, stopChild } from './processes.js';
import {
  type CreateOutcome,
  cpuNote,
  createProblems,
  type ListRound,
  listProblems,
  roundLine,
  table,
} from './report.js';
import { assertRunning, CLI, type Server, type Service, startAnchor, startService } from './servers.js';
import { runWrk, type WrkResult, type WrkScripts, writeScripts } from './wrk.js';

const LIST_PATH = '/v1/categories';
const SEEDED = 100;

interface Settings {
  seconds: number;
  warmupSeconds: number;
  rounds: number;
  connections: number;
  tmpdir: string;
  cpuProfileDir: string | undefined;
}

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer (got ${raw})`);
  return value;
}

function readSettings(): Settings {
  const profileDir = process.env.BENCH_CPU_PROFILE_DIR;
  return {
    seconds: positiveInteger('BENCH_SECONDS', 10),
    warmupSeconds: positiveInteger('BENCH_WARMUP_SECONDS', 2),
    rounds: positiveInteger('BENCH_ROUNDS', 3),
    connections: positiveInteger('BENCH_CONNECTIONS', 50),
    tmpdir: process.env.BENCH_TMPDIR || os.tmpdir(),
    cpuProfileDir: profileDir ? path.resolve(profileDir) : undefined,
  };
}

/** Fails early, with the fix, when the machine cannot run the method. */
function checkPrerequisites(): void {
  if (!commandExists('wrk')) {
    throw new Error('wrk is not on PATH; install it with `apt-get install wrk` (Debian/Ubuntu)');
  }
  if (!commandExists('taskset')) {
    throw new Error('taskset is not on PATH; install it with `apt-get install util-linux`');
  }
  if (os.availableParallelism() < 2) {
    throw new Error(
      `the bench pins the server to CPU ${SERVER_CPU} and wrk to CPU ${LOAD_CPU}; this machine has 1 CPU`,
    );
  }
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing; build first (npm run build)`);
}

const log = (line: string) => process.stdout.write(`${line}\n`);

async function seed(service: Service): Promise<void> {
  for (let i = 1; i <= SEEDED; i += 1) {
    const n = String(i).padStart(3, '0');
    // About 110 bytes per entry, so the list is near the 10.9 KB of BENCHMARKS.md.
    const body = JSON.stringify({
      name: `Category ${n}`,
      description: `Seeded category ${n} of the list benchmark, short text`,
    });
    const response = await request(`${service.url}${LIST_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    if (response.status !== 201)
      throw new Error(`seeding: POST answered ${response.status}: ${response.body}`);
  }
}

interface ListSnapshot {
  body: Buffer;
  contentType: string;
  etag: string;
}

async function fetchList(service: Service): Promise<ListSnapshot> {
  const response = await request(`${service.url}${LIST_PATH}`);
  const { etag, 'content-type': contentType } = response.headers;
  if (response.status !== 200 || etag === undefined || contentType === undefined) {
    throw new Error(`GET ${LIST_PATH} answered ${response.status} without ETag or content type`);
  }
  return { body: response.body, contentType, etag };
}

async function countRows(service: Service): Promise<number> {
  const { status, body } = await request(`${service.url}${LIST_PATH}`);
  if (status !== 200) throw new Error(`GET ${LIST_PATH} answered ${status}`);
  return (JSON.parse(body.toString('utf8')) as unknown[]).length;
}

/** A warm-up run whose figures are dropped, then the measured run. */
async function measure(
  settings: Settings,
  server: Server,
  run: { path: string; script: string; headers?: string[] },
): Promise<WrkResult> {
  const common = { ...run, url: `${server.url}${run.path}`, connections: settings.connections };
  const serverPid = server.child.pid ?? 0;
  await runWrk({ ...common, serverPid, seconds: settings.warmupSeconds });
  return runWrk({ ...common, serverPid, seconds: settings.seconds });
}

async function listRounds(
  settings: Settings,
  servers: { service: Service; anchor: Server },
  scripts: WrkScripts,
  list: ListSnapshot,
): Promise<ListRound[]> {
  const { service, anchor } = servers;
  const rounds: ListRound[] = [];
  for (let i = 0; i < settings.rounds; i += 1) {
    assertRunning(anchor, 'anchor');
    assertRunning(service, 'service');
    const round: ListRound = {
      anchor: await measure(settings, anchor, { path: LIST_PATH, script: scripts.get }),
      service: await measure(settings, service, { path: LIST_PATH, script: scripts.get }),
      notModified: await measure(settings, service, {
        path: LIST_PATH,
        script: scripts.get,
        headers: [`If-None-Match: ${list.etag}`],
      }),
    };
    log(roundLine(i, round));
    rounds.push(round);
  }
  return rounds;
}

async function createRun(settings: Settings, service: Service, scripts: WrkScripts): Promise<CreateOutcome> {
  const run = {
    url: `${service.url}${LIST_PATH}`,
    script: scripts.create,
    connections: settings.connections,
    serverPid: service.child.pid ?? 0,
  };
  await runWrk({ ...run, seconds: settings.warmupSeconds });
  const flushCounter = diskFlushCounter(path.dirname(service.file));
  const rowsBefore = await countRows(service);
  const flushesBefore = flushCounter?.();
  const result = await runWrk({ ...run, seconds: settings.seconds });
  const flushesAfter = flushCounter?.();
  // Requests still in flight when wrk stopped may have committed without wrk seeing their 201, so the rows
  // added may exceed the 201s, never fall short of them.
  const rowsAdded = (await countRows(service)) - rowsBefore;
  const otherStatuses = new Map([...result.statuses].filter(([status]) => status !== 201));
  log(`create: ${Math.round(result.rps)} creates/s p99 ${result.p99Ms.toFixed(2)}ms (${cpuNote(result)})`);
  return {
    result,
    created201: result.statuses.get(201) ?? 0,
    otherStatuses,
    rowsAdded,
    walFile: isWalFile(service.file),
    flushes:
      flushesBefore === undefined || flushesAfter === undefined ? undefined : flushesAfter - flushesBefore,
  };
}

async function main(): Promise<number> {
  installCleanupHandlers();
  checkPrerequisites();
  const settings = readSettings();
  const dir = fs.mkdtempSync(path.join(settings.tmpdir, 'petstore-bench-'));
  onCleanup(() => fs.rmSync(dir, { recursive: true, force: true }));
  const scripts = writeScripts(dir);

  log(
    `bench: wrk -t1 -c${settings.connections} on CPU ${LOAD_CPU}, servers on CPU ${SERVER_CPU}, ${settings.rounds} rounds of ${settings.warmupSeconds}+${settings.seconds} s, data in ${dir}`,
  );
  const service = await startService(dir, settings.cpuProfileDir);
  await seed(service);
  const list = await fetchList(service);
  const anchor = await startAnchor(dir, list.body, list.contentType);
  log(`list: ${SEEDED} categories, ${list.body.length} bytes, ETag ${list.etag}`);

  // Other processes on the machine disturb the figures; measuring them idle tells the reader how much.
  const idleBefore = await backgroundLoad(2000);
  const rounds = await listRounds(settings, { service, anchor }, scripts, list);
  await stopChild(anchor.child);
  const create = await createRun(settings, service, scripts);
  // A clean stop lets the service checkpoint and close its file, and write its CPU profile if asked.
  await stopChild(service.child);
  const idleAfter = await backgroundLoad(2000);

  const settingsLine = `wrk -t1 -c${settings.connections} --latency, ${settings.seconds} s runs`;
  log(`\n${table(rounds, create, [idleBefore, idleAfter], settingsLine)}`);
  const problems = [...listProblems(rounds, list.body.length), ...createProblems(create)];
  for (const problem of problems) log(`PROBLEM ${problem}`);
  if (settings.cpuProfileDir !== undefined) log(`CPU profile of the service in ${settings.cpuProfileDir}`);
  // Missed speed targets are figures to read; wrong answers or lost rows make the run fail.
  return problems.length === 0 ? 0 : 1;
}

main().then(
  (code) => {
    cleanUpNow();
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bench: ${(error as Error).message}\n`);
    cleanUpNow();
    process.exitCode = 1;
  },
);
