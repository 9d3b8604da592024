/**
 * The final table: the embedded mode's figures and the two-instance mode's beside them, row by row, so
 * that the cost of shared state reads straight across.
 */
import {
  type CreateOutcome,
  costText,
  createsVerdict,
  type Durability,
  type ListFigures,
  type ListRound,
  listFigures,
  listVerdict,
  median,
  ms,
  type Paired,
  percent,
  rate,
  type SharedStatePerRequest,
  TARGETS,
  type UsableRounds,
  usableRounds,
} from './report.js';
import { type TickCosts, tickCostsText } from './tick-costs.js';

const LABEL = 15;
const COLUMN = 50;
const row = (label: string, embedded: string, scaled: string) =>
  `${label.padEnd(LABEL)}| ${embedded.padEnd(COLUMN)}| ${scaled}`;
/** A row whose text spans both columns. */
const wide = (label: string, text: string) => `${label.padEnd(LABEL)}| ${text}`;

/** The two-instance column when the mode did not run. */
const OFF = 'not run (BENCH_SCALE=off)';

const latency = (figures: { p50: number; p99: number }) => `p50 ${ms(figures.p50)} p99 ${ms(figures.p99)}`;

/** The list figures of each kind of run, over the usable rounds. */
function listColumns(used: UsableRounds) {
  const paired = (pick: (round: ListRound) => Paired['result'] | undefined): Paired[] =>
    used.rounds.flatMap((round) => {
      const result = pick(round);
      if (result === undefined) return [];
      const { anchor, bodyAnchor, fastifyAnchor } = round;
      return [{ result, anchor, bodyAnchor, fastifyAnchor }];
    });
  const scaled = paired((round) => round.scaled);
  return {
    anchor: listFigures(paired((round) => round.anchor)),
    bodyAnchor: listFigures(paired((round) => round.bodyAnchor)),
    fastifyAnchor: listFigures(paired((round) => round.fastifyAnchor)),
    embedded: listFigures(paired((round) => round.service)),
    notModified: listFigures(paired((round) => round.notModified)),
    notModifiedAnchor: listFigures(paired((round) => round.notModifiedAnchor)),
    notModifiedFastify: listFigures(paired((round) => round.notModifiedFastify)),
    // Each round's 304s against the same round's bare node:http 304.
    notModifiedRatio: median(used.rounds.map((round) => round.notModified.rps / round.notModifiedAnchor.rps)),
    notModifiedFastifyRatio: median(
      used.rounds.map((round) => round.notModifiedFastify.rps / round.notModifiedAnchor.rps),
    ),
    scaled: scaled.length === 0 ? undefined : listFigures(scaled),
  };
}

function listRows(used: UsableRounds): string[] {
  const {
    anchor,
    bodyAnchor,
    fastifyAnchor,
    embedded,
    notModified,
    notModifiedAnchor,
    notModifiedFastify,
    notModifiedRatio,
    notModifiedFastifyRatio,
    scaled,
  } = listColumns(used);
  // Total CPU per answer, PostgreSQL and Redis included, against the anchor's.
  const cpu = (figures: ListFigures) => {
    const shared = figures.backendUs > 0 ? ` + ${figures.backendUs.toFixed(1)} us PG/Redis` : '';
    const ratio = anchor.serverUs / (figures.serverUs + figures.backendUs);
    return `${figures.serverUs.toFixed(1)} us${shared} (anchor/this ${ratio.toFixed(2)})`;
  };
  const notMeasured = scaled ? 'not measured' : OFF;
  return [
    row(
      'list req/s',
      `${rate(embedded.rps)}, ratio ${embedded.ratio.toFixed(2)} to bare node:http`,
      scaled ? `${rate(scaled.rps)}, ratio ${scaled.ratio.toFixed(2)} (no target)` : OFF,
    ),
    row(
      'list, body only',
      `ratio ${embedded.bodyRatio.toFixed(2)} to an anchor without the API's headers`,
      scaled ? `ratio ${scaled.bodyRatio.toFixed(2)}` : OFF,
    ),
    row(
      'list, Fastify',
      `ratio ${embedded.fastifyRatio.toFixed(2)} to bare Fastify ${listVerdict(embedded.fastifyRatio, used)}`,
      scaled ? `ratio ${scaled.fastifyRatio.toFixed(2)}` : OFF,
    ),
    row('list latency', latency(embedded), scaled ? latency(scaled) : OFF),
    row('list CPU/req', cpu(embedded), scaled ? cpu(scaled) : OFF),
    // What the service's own work costs a request: its CPU less bare Fastify's for the same bytes.
    row(
      'own work/req',
      `${(embedded.serverUs - fastifyAnchor.serverUs).toFixed(1)} us (this less bare Fastify's ${fastifyAnchor.serverUs.toFixed(1)} us)`,
      scaled
        ? `${(scaled.serverUs + scaled.backendUs - fastifyAnchor.serverUs).toFixed(1)} us, PG/Redis included`
        : OFF,
    ),
    row(
      'list 304 req/s',
      `${rate(notModified.rps)}, ratio ${notModifiedRatio.toFixed(2)} to bare node:http's 304 ${listVerdict(notModifiedRatio, used, TARGETS.notModifiedToHttp)}`,
      notMeasured,
    ),
    row(
      'list 304 CPU',
      `${notModified.serverUs.toFixed(1)} us/req (bare node:http's 304: ${notModifiedAnchor.serverUs.toFixed(1)} us)`,
      notMeasured,
    ),
    // The framework's own share of the 304 bar: bare Fastify, no hooks, answering the same 304.
    row(
      'Fastify 304',
      `ratio ${notModifiedFastifyRatio.toFixed(2)} to bare node:http's 304, ${notModifiedFastify.serverUs.toFixed(1)} us/req`,
      notMeasured,
    ),
    row('list 304 lat.', latency(notModified), notMeasured),
    wide(
      'anchor',
      `bare node:http, identical bytes: ${rate(anchor.rps).trim()} req/s ${latency(anchor)}, ${anchor.serverUs.toFixed(1)} us/req`,
    ),
    wide(
      'body-only anc.',
      `bare node:http, same body, content type only: ${rate(bodyAnchor.rps).trim()} req/s ${latency(bodyAnchor)}, ${bodyAnchor.serverUs.toFixed(1)} us/req`,
    ),
    wide(
      'Fastify anchor',
      `bare Fastify, one route, no hooks, identical bytes: ${rate(fastifyAnchor.rps).trim()} req/s, ratio ${fastifyAnchor.ratio.toFixed(2)}, ${latency(fastifyAnchor)}, ${fastifyAnchor.serverUs.toFixed(1)} us/req`,
    ),
  ];
}

function durabilityText(durability: Durability): string {
  return durability.kind === 'sqlite'
    ? `journal_mode ${durability.walFile ? 'wal' : 'NOT wal'} (file header), synchronous=FULL`
    : `synchronous_commit=${durability.synchronousCommit} fsync=${durability.fsync}`;
}

function flushText(create: CreateOutcome): string {
  const { flushes } = create;
  if (flushes === undefined) return 'not reported by this disk';
  const perFlush = flushes === 0 ? '' : ` (${(create.created201 / flushes).toFixed(1)} creates per flush)`;
  return `${flushes}${perFlush}`;
}

function createRows(embedded: CreateOutcome, scaled: CreateOutcome | undefined): string[] {
  const both = (text: (create: CreateOutcome) => string) =>
    [text(embedded), scaled ? text(scaled) : OFF] as const;
  const other = (create: CreateOutcome) => [...create.otherStatuses.values()].reduce((sum, n) => sum + n, 0);
  return [
    row(
      'creates/s',
      `${rate(embedded.result.rps)} ${createsVerdict(embedded.result)}`,
      scaled ? `${rate(scaled.result.rps)} (no target)` : OFF,
    ),
    row('create latency', ...both((c) => latency({ p50: c.result.p50Ms, p99: c.result.p99Ms }))),
    row('create CPU', ...both((c) => costText(c.result))),
    row(
      'create answers',
      ...both((c) => `201s ${c.created201}, other ${other(c)}, socket errors ${c.result.socketErrors}`),
    ),
    row('rows added', ...both((c) => `${c.rowsAdded} ${c.rowsAdded >= c.created201 ? '>=' : '<'} 201s`)),
    row('durability', ...both((c) => durabilityText(c.durability))),
    row('disk flushes', ...both(flushText)),
  ];
}

/** What each request of the two instances paid in shared state, as counted by Redis and PostgreSQL. */
function sharedStateRows(used: UsableRounds, create: CreateOutcome | undefined): string[] {
  const list = listColumns(used).scaled;
  const text = (count: (paid: SharedStatePerRequest) => number) => {
    if (list === undefined || create === undefined) return OFF;
    const per = (paid: SharedStatePerRequest | undefined) =>
      paid === undefined ? '?' : count(paid).toFixed(2);
    return `${per(list.perRequest)} per list request, ${per(create.result.perRequest)} per create`;
  };
  return [
    row(
      'Redis calls',
      'none',
      text((paid) => paid.redisCalls),
    ),
    row(
      'PG write xacts',
      'none (SQLite group commit)',
      text((paid) => paid.writeTransactions),
    ),
  ];
}

/** What the two-instance figures are, so that nobody reads them as a measure of scale-out capacity. */
const SCALED_NOTES = [
  '2 instances: each /v1 request is decided on Redis time (limits stay exact across instances), the',
  'requests of a key that arrive together in one Lua script call, one round trip per batch; the creates',
  'of a turn share one PostgreSQL COMMIT, each answered after it. Both instances share CPU 0 (wrk on CPU 1;',
  'PostgreSQL and Redis run unpinned), so this shows what shared state costs per request, not how far',
  'instances scale.',
];

function machineRow(all: ListRound[], used: UsableRounds, idle: number[]): string {
  const rounds = used.clean
    ? `${used.rounds.length} of ${all.length} rounds undisturbed; list figures are medians over those`
    : `WARNING: every round was disturbed by other processes; figures are not trustworthy, rerun on a quiet machine`;
  return wide(
    'machine',
    `${rounds} | busiest CPU with the bench idle: ${idle.map(percent).join(' before, ')} after`,
  );
}

export interface Report {
  rounds: ListRound[];
  create: CreateOutcome;
  scaledCreate: CreateOutcome | undefined;
  ticks: TickCosts;
  idle: number[];
  settings: string;
}

export function table(report: Report): string {
  const used = usableRounds(report.rounds);
  const scaledRan = report.scaledCreate !== undefined;
  return [
    `== Results: ${report.settings} ==`,
    row('', 'embedded: 1 process, SQLite, limits in it', scaledRan ? '2 instances: PostgreSQL + Redis' : OFF),
    ...listRows(used),
    ...createRows(report.create, report.scaledCreate),
    ...sharedStateRows(used, report.scaledCreate),
    wide('nextTick', tickCostsText(report.ticks)),
    ...(scaledRan ? SCALED_NOTES.map((line, i) => wide(i === 0 ? 'note' : '', line)) : []),
    machineRow(report.rounds, used, report.idle),
  ].join('\n');
}
