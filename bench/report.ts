import { FOREIGN_LIMIT } from './cpu.js';
import type { WrkResult } from './wrk.js';

/** One A X X' round of the list benchmark: anchor, service (200), service answering 304. */
export interface ListRound {
  anchor: WrkResult;
  service: WrkResult;
  notModified: WrkResult;
}

export interface CreateOutcome {
  result: WrkResult;
  created201: number;
  otherStatuses: Map<number, number>;
  rowsAdded: number;
  walFile: boolean;
  /** Disk flushes during the measured run; undefined when the disk does not report them. */
  flushes: number | undefined;
}

export const TARGETS = { listRatio: 0.7, createsPerSecond: 10_000 } as const;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? Number.NaN) + upper) / 2;
}

const rate = (rps: number) => `${Math.round(rps)}`.padStart(6);
const ms = (value: number) => `${value.toFixed(2)}ms`.padStart(8);
const percent = (share: number) => `${Math.round(share * 100)}%`;
const met = (ok: boolean) => (ok ? 'MET' : 'NOT MET');

/** Server CPU microseconds per answer: unlike requests/s, barely moved by other processes on the machine. */
const costUs = (result: WrkResult) => (result.cpu.serverSeconds * 1e6) / Math.max(result.requests, 1);

const disturbed = (result: WrkResult) => result.cpu.foreign > FOREIGN_LIMIT;

/** Where the CPU went during a run: wrk near 100% would mean the load generator, not the server, limits. */
export function cpuNote(result: WrkResult): string {
  const { server, load, foreign } = result.cpu;
  const flag = disturbed(result) ? ' DISTURBED' : '';
  return `server ${percent(server)} wrk ${percent(load)} other ${percent(foreign)}${flag}, ${costUs(result).toFixed(1)} us/req`;
}

export function roundLine(index: number, round: ListRound): string {
  const { anchor, service, notModified } = round;
  return [
    `round ${index + 1}: anchor ${rate(anchor.rps)} req/s (${cpuNote(anchor)})`,
    `  service ${rate(service.rps)} req/s ratio ${(service.rps / anchor.rps).toFixed(2)} (${cpuNote(service)})`,
    `  304     ${rate(notModified.rps)} req/s ratio ${(notModified.rps / anchor.rps).toFixed(2)} (${cpuNote(notModified)})`,
  ].join('\n');
}

/** Rounds, and whether no other process disturbed them. */
type UsableRounds = { rounds: ListRound[]; clean: boolean };

/**
 * The rounds the figures are taken from: those no other process disturbed, since a run that lost its CPU
 * measures the machine, not the server. All rounds when none is clean, and the report says so.
 */
function usableRounds(rounds: ListRound[]): UsableRounds {
  const clean = rounds.filter((round) => !Object.values(round).some(disturbed));
  return clean.length > 0 ? { rounds: clean, clean: true } : { rounds, clean: false };
}

/** `41234 req/s p50 1.10ms p99 2.30ms`, from the medians of each figure over the rounds. */
function figures(results: WrkResult[], unit: string): string {
  const p50 = median(results.map((r) => r.p50Ms));
  const p99 = median(results.map((r) => r.p99Ms));
  return `${rate(median(results.map((r) => r.rps)))} ${unit} p50 ${ms(p50)} p99 ${ms(p99)}`;
}

/**
 * A disturbed run can move a ratio either way (the anchor and the service lose different shares of their
 * CPU), so without an undisturbed round the verdict is unknown, not MET or NOT MET.
 */
function listVerdict(ratio: number, used: UsableRounds): string {
  const target = `(target >= ${TARGETS.listRatio.toFixed(2)})`;
  return used.clean
    ? `${target} ${met(ratio >= TARGETS.listRatio)}`
    : `${target} UNKNOWN, every round disturbed`;
}

function listLine(
  label: string,
  used: UsableRounds,
  pick: (round: ListRound) => WrkResult,
  hasTarget: boolean,
): string {
  const { rounds } = used;
  const ratio = median(rounds.map((round) => pick(round).rps / round.anchor.rps));
  const cost = median(rounds.map((round) => costUs(round.anchor) / costUs(pick(round))));
  return [
    `${label} service ${figures(rounds.map(pick), 'req/s')}`,
    `anchor ${figures(
      rounds.map((round) => round.anchor),
      'req/s',
    )}`,
    `ratio ${ratio.toFixed(2)} ${hasTarget ? listVerdict(ratio, used) : '(no target)'}`,
    `CPU/req ratio ${cost.toFixed(2)}`,
  ].join(' | ');
}

/** Problems that make figures untrustworthy: failed answers, socket errors, 304s that carried the body. */
export function listProblems(rounds: ListRound[], bodyLength: number): string[] {
  const problems: string[] = [];
  rounds.forEach((round, index) => {
    for (const [name, result] of Object.entries(round)) {
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

export function createProblems(outcome: CreateOutcome): string[] {
  const problems: string[] = [];
  if (outcome.otherStatuses.size > 0 || outcome.result.non2xx3xx > 0) {
    const statuses = [...outcome.otherStatuses].map(([status, n]) => `${status}: ${n}`).join(', ');
    problems.push(
      `create: answers other than 201 (${statuses}); wrk counted ${outcome.result.non2xx3xx} non-2xx/3xx`,
    );
  }
  if (outcome.result.socketErrors > 0) problems.push(`create: ${outcome.result.socketErrors} socket errors`);
  if (outcome.rowsAdded < outcome.created201) {
    problems.push(`create: only ${outcome.rowsAdded} rows were added for ${outcome.created201} answers 201`);
  }
  if (!outcome.walFile) problems.push('create: the SQLite file is not in WAL mode');
  if (outcome.flushes === 0) problems.push('create: the disk saw no flush, so commits did not fsync');
  return problems;
}

function createLines(create: CreateOutcome): string[] {
  const { result, flushes } = create;
  const other = [...create.otherStatuses.values()].reduce((sum, n) => sum + n, 0);
  const perFlush =
    flushes === undefined || flushes === 0
      ? ''
      : ` (${(create.created201 / flushes).toFixed(1)} creates per flush)`;
  // Other processes only take throughput away, so a disturbed run that met the target still met it.
  const ok = result.rps >= TARGETS.createsPerSecond;
  const verdict = disturbed(result) && !ok ? 'UNKNOWN, run disturbed' : met(ok);
  const rows = `rows added ${create.rowsAdded} ${create.rowsAdded >= create.created201 ? '>=' : '<'} 201s ${create.created201}`;
  return [
    `create    service ${rate(result.rps)} creates/s p50 ${ms(result.p50Ms)} p99 ${ms(result.p99Ms)} | 201s ${create.created201}, other answers ${other}, socket errors ${result.socketErrors} | target >= ${TARGETS.createsPerSecond} creates/s durable ${verdict}`,
    `create    ${rows} | ${cpuNote(result)}`,
    `durability journal_mode ${create.walFile ? 'wal' : 'NOT wal'} (file header), synchronous=FULL read back by the service at start, no setting passed by the bench | disk flushes during the run ${flushes ?? 'not reported by this disk'}${perFlush}`,
  ];
}

function machineLine(all: ListRound[], used: UsableRounds, idle: number[]): string {
  const rounds = used.clean
    ? `${used.rounds.length} of ${all.length} rounds undisturbed; list figures are medians over those`
    : `WARNING: every round was disturbed by other processes; figures are not trustworthy, rerun on a quiet machine`;
  return `machine   ${rounds} | busiest CPU with the bench idle: ${idle.map(percent).join(' before, ')} after`;
}

export function table(rounds: ListRound[], create: CreateOutcome, idle: number[], settings: string): string {
  const used = usableRounds(rounds);
  return [
    `== Results: ${settings} ==`,
    listLine('list     ', used, (round) => round.service, true),
    listLine('list 304 ', used, (round) => round.notModified, false),
    ...createLines(create),
    machineLine(rounds, used, idle),
  ].join('\n');
}
