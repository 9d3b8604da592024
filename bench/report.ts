import type { PostgresDurability } from './backends.js';
import { FOREIGN_LIMIT } from './cpu.js';
import type { WrkResult } from './wrk.js';

/**
 * A wrk run and, in the scale-out mode, what each request paid in shared state: Redis script calls and
 * PostgreSQL write transactions.
 */
export type Measured = WrkResult & { perRequest?: { redisCalls: number; writeTransactions: number } };

/**
 * One round of the list benchmark: the three anchors, embedded service (200), embedded service answering
 * 304, and the two instances when the scale-out mode runs. `anchor` answers the service's identical bytes,
 * headers included (the target's ratio is to it); `bodyAnchor` answers the same body with only its content
 * type, so the difference between the two is what the API's required headers cost in Node itself;
 * `fastifyAnchor` answers the identical bytes from a bare Fastify app, so the difference between it and
 * the service is what the service's own hooks and work cost.
 */
export interface ListRound {
  anchor: WrkResult;
  bodyAnchor: WrkResult;
  fastifyAnchor: WrkResult;
  service: WrkResult;
  /** The identical anchor answering 304, as the service does to the list's ETag: bare `node:http`'s 304. */
  notModifiedAnchor: WrkResult;
  /** Bare Fastify answering the same 304: how near to bare `node:http`'s the framework alone gets. */
  notModifiedFastify: WrkResult;
  notModified: WrkResult;
  scaled?: Measured;
}

/** What makes a 201 durable in each mode, as read back by the bench. */
export type Durability =
  | { kind: 'sqlite'; walFile: boolean }
  | ({ kind: 'postgres' } & Omit<PostgresDurability, 'dataDirectory'>);

export interface CreateOutcome {
  result: Measured;
  created201: number;
  otherStatuses: Map<number, number>;
  rowsAdded: number;
  durability: Durability;
  /** Disk flushes during the measured run; undefined when the disk does not report them. */
  flushes: number | undefined;
}

/** The embedded list's ratio to the identical-bytes anchor (issue 21; issue 2 asked 0.70), and creates/s. */
/**
 * The targets a run is read against: the list at 0.75 of bare Fastify sending the same bytes (issue 41; the
 * earlier 0.80 of bare `node:http` is retired, BENCHMARKS.md), and durable creates.
 */
export const TARGETS = { listToFastify: 0.75, notModifiedToHttp: 0.85, createsPerSecond: 10_000 } as const;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? Number.NaN) + upper) / 2;
}

export const rate = (rps: number) => `${Math.round(rps)}`.padStart(6);
export const ms = (value: number) => `${value.toFixed(2)}ms`;
export const percent = (share: number) => `${Math.round(share * 100)}%`;
const met = (ok: boolean) => (ok ? 'MET' : 'NOT MET');

/** Server CPU microseconds per answer: unlike requests/s, barely moved by other processes on the machine. */
/** The server CPU a run spent per request, in microseconds. */
export const costUs = (result: WrkResult) => (result.cpu.serverSeconds * 1e6) / Math.max(result.requests, 1);
/** PostgreSQL's and Redis's CPU microseconds per answer; 0 in the embedded mode. */
const backendUs = (result: WrkResult) => (result.cpu.backendSeconds * 1e6) / Math.max(result.requests, 1);

const disturbed = (result: WrkResult) => result.cpu.foreign > FOREIGN_LIMIT;

/** CPU per answer of the servers, and of PostgreSQL and Redis when the run used them. */
export function costText(result: WrkResult): string {
  const shared = result.cpu.backends > 0 ? ` + ${backendUs(result).toFixed(1)} us PG/Redis` : '';
  return `${costUs(result).toFixed(1)} us${shared} per request`;
}

/** Where the CPU went during a run: wrk near 100% would mean the load generator, not the server, limits. */
export function cpuNote(result: WrkResult): string {
  const { servers, load, backends, foreign } = result.cpu;
  const flag = disturbed(result) ? ' DISTURBED' : '';
  const shared = backends > 0 ? ` PG/Redis ${percent(backends)}` : '';
  return `server ${servers.map(percent).join('+')} wrk ${percent(load)}${shared} other ${percent(foreign)}${flag}, ${costText(result)}`;
}

function ratioLine(name: string, result: WrkResult, round: ListRound): string {
  const ratios = `${(result.rps / round.anchor.rps).toFixed(2)} (body only ${(result.rps / round.bodyAnchor.rps).toFixed(2)}, Fastify ${(result.rps / round.fastifyAnchor.rps).toFixed(2)})`;
  return `  ${name.padEnd(11)} ${rate(result.rps)} req/s ratio ${ratios} (${cpuNote(result)})`;
}

export function roundLine(index: number, round: ListRound): string {
  const { anchor, bodyAnchor, fastifyAnchor, service, notModified, scaled } = round;
  return [
    `round ${index + 1}: anchor ${rate(anchor.rps)} req/s (${cpuNote(anchor)})`,
    `  body only   ${rate(bodyAnchor.rps)} req/s (${cpuNote(bodyAnchor)})`,
    `  Fastify     ${rate(fastifyAnchor.rps)} req/s (${cpuNote(fastifyAnchor)})`,
    ratioLine('service', service, round),
    `  304 anchor  ${rate(round.notModifiedAnchor.rps)} req/s (${cpuNote(round.notModifiedAnchor)})`,
    `  304 Fastify ${rate(round.notModifiedFastify.rps)} req/s ratio ${(round.notModifiedFastify.rps / round.notModifiedAnchor.rps).toFixed(2)} to bare node:http's 304 (${cpuNote(round.notModifiedFastify)})`,
    `  304         ${rate(notModified.rps)} req/s ratio ${(notModified.rps / round.notModifiedAnchor.rps).toFixed(2)} to bare node:http's 304 (${cpuNote(notModified)})`,
    ...(scaled === undefined ? [] : [ratioLine('2 instances', scaled, round)]),
  ].join('\n');
}

/** Rounds, and whether no other process disturbed them. */
export type UsableRounds = { rounds: ListRound[]; clean: boolean };

/**
 * The rounds the figures are taken from: those no other process disturbed, since a run that lost its CPU
 * measures the machine, not the server. All rounds when none is clean, and the report says so.
 */
export function usableRounds(rounds: ListRound[]): UsableRounds {
  const clean = rounds.filter((round) => !runsOf(round).some(([, result]) => disturbed(result)));
  return clean.length > 0 ? { rounds: clean, clean: true } : { rounds, clean: false };
}

/** The runs of a round, by name. */
function runsOf(round: ListRound): [string, WrkResult][] {
  const { scaled, ...embedded } = round;
  const runs: [string, WrkResult][] = Object.entries(embedded);
  if (scaled !== undefined) runs.push(['2 instances', scaled]);
  return runs;
}

/**
 * A disturbed run can move a ratio either way (the anchor and the service lose different shares of their
 * CPU), so without an undisturbed round the verdict is unknown, not MET or NOT MET.
 */
export function listVerdict(
  ratio: number,
  used: UsableRounds,
  target: number = TARGETS.listToFastify,
): string {
  const text = `(>= ${target.toFixed(2)}`;
  return used.clean ? `${text} ${met(ratio >= target)})` : `${text} UNKNOWN: disturbed)`;
}

/** The medians, over the usable rounds, of one kind of run. */
export interface ListFigures {
  rps: number;
  /** To the anchor answering the identical bytes, to the one answering the body alone, and to bare Fastify. */
  ratio: number;
  bodyRatio: number;
  fastifyRatio: number;
  p50: number;
  p99: number;
  serverUs: number;
  backendUs: number;
  perRequest: SharedStatePerRequest | undefined;
}

export type SharedStatePerRequest = NonNullable<Measured['perRequest']>;

/** One run of a round, with the anchor runs of the same round that its ratios are taken against. */
export type Paired = { result: Measured } & Pick<ListRound, 'anchor' | 'bodyAnchor' | 'fastifyAnchor'>;

export function listFigures(runs: Paired[]): ListFigures {
  const of = (value: (run: Paired) => number) => median(runs.map(value));
  const paid = runs.flatMap((run) => run.result.perRequest ?? []);
  return {
    rps: of((run) => run.result.rps),
    ratio: of((run) => run.result.rps / run.anchor.rps),
    bodyRatio: of((run) => run.result.rps / run.bodyAnchor.rps),
    fastifyRatio: of((run) => run.result.rps / run.fastifyAnchor.rps),
    p50: of((run) => run.result.p50Ms),
    p99: of((run) => run.result.p99Ms),
    serverUs: of((run) => costUs(run.result)),
    backendUs: of((run) => backendUs(run.result)),
    perRequest:
      paid.length === 0
        ? undefined
        : {
            redisCalls: median(paid.map((p) => p.redisCalls)),
            writeTransactions: median(paid.map((p) => p.writeTransactions)),
          },
  };
}

/** Problems that make figures untrustworthy: failed answers, socket errors, 304s that carried the body. */
export function listProblems(rounds: ListRound[], bodyLength: number): string[] {
  const problems: string[] = [];
  rounds.forEach((round, index) => {
    for (const [name, result] of runsOf(round)) {
      if (result.non2xx3xx > 0 || result.socketErrors > 0) {
        problems.push(
          `round ${index + 1} ${name}: ${result.non2xx3xx} non-2xx/3xx, ${result.socketErrors} socket errors`,
        );
      }
    }
    if (round.notModified.bytesPerResponse >= bodyLength) {
      problems.push(
        `round ${index + 1}: If-None-Match did not yield 304s (${Math.round(round.notModified.bytesPerResponse)} bytes per answer)`,
      );
    }
  });
  return problems;
}

export function createProblems(name: string, outcome: CreateOutcome): string[] {
  const problems: string[] = [];
  if (outcome.otherStatuses.size > 0 || outcome.result.non2xx3xx > 0) {
    const statuses = [...outcome.otherStatuses].map(([status, n]) => `${status}: ${n}`).join(', ');
    problems.push(
      `${name} create: answers other than 201 (${statuses}); wrk counted ${outcome.result.non2xx3xx} non-2xx/3xx`,
    );
  }
  if (outcome.result.socketErrors > 0)
    problems.push(`${name} create: ${outcome.result.socketErrors} socket errors`);
  if (outcome.rowsAdded < outcome.created201) {
    problems.push(
      `${name} create: only ${outcome.rowsAdded} rows were added for ${outcome.created201} answers 201`,
    );
  }
  problems.push(...durabilityProblems(name, outcome.durability));
  if (outcome.flushes === 0) problems.push(`${name} create: the disk saw no flush, so commits did not fsync`);
  return problems;
}

function durabilityProblems(name: string, durability: Durability): string[] {
  if (durability.kind === 'sqlite') {
    return durability.walFile ? [] : [`${name} create: the SQLite file is not in WAL mode`];
  }
  const problems: string[] = [];
  if (durability.fsync !== 'on')
    problems.push(`${name} create: PostgreSQL runs with fsync=${durability.fsync}`);
  // local, remote_write, on and remote_apply all wait for the local WAL flush; only off does not.
  if (durability.synchronousCommit === 'off') {
    problems.push(`${name} create: PostgreSQL runs with synchronous_commit=off`);
  }
  return problems;
}

/** Other processes only take throughput away, so a disturbed run that met the target still met it. */
export function createsVerdict(result: WrkResult): string {
  const ok = result.rps >= TARGETS.createsPerSecond;
  const verdict = disturbed(result) && !ok ? 'UNKNOWN, run disturbed' : met(ok);
  return `(>= ${TARGETS.createsPerSecond} durable ${verdict})`;
}
