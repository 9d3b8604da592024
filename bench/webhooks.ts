/**
 * `npm run bench:webhooks`: the budgets of issue 42, on the embedded service as users run it (defaults, and
 * `WEBHOOKS_ALLOW_PRIVATE=true` so that it may send to a receiver on 127.0.0.1).
 *
 * 1. Creates with one endpoint subscribed against none (budget: at least 0.90). Two services of this build,
 *    each pinned to CPU 0, one with an endpoint subscribed to `category.created`; BENCH_ROUNDS pairs of
 *    create runs, the two turning about within each pair; the verdict is the median of the pairs' ratios. The
 *    subscribed one keeps each event with its create and sends, while it answers, at the pace that yields to
 *    the API (200 a second); the rest drains after the run, and each run waits for that drain, so that no
 *    run shares CPU 0 with the other service's drain.
 * 2. The list while a backlog drains (budget: p99 at most 1.10 of the list's without a backlog), on a third
 *    service with the seeded list only: a backlog of BENCH_BACKLOG events (100,000) kept straight into its
 *    file, and list runs while more than a tenth of it is left, against list runs of the same service before
 *    and after (turning about is not possible: the backlog is there or it is not).
 * 3. Deliveries a second (budget: at least 1,000 sustained): the same backlog again, with no other load,
 *    timed until every delivery has left `pending`.
 *
 * The receiver answers 200 at once, in its own process on CPU 1 beside wrk. Bounded: the drain waits at most
 * BENCH_DRAIN_SECONDS (300).
 */

import { randomUUID } from 'node:crypto';
import { Sqlite } from '../src/storage/index.js';
import { LOAD_CPU, SERVER_CPU } from './cpu.js';
import { type Embedded, seed, startEmbedded } from './deployments.js';
import { measureOnce, type Run, type Target, targetOf, warmUp } from './measure.js';
import {
  runBench,
  runToCompletion,
  scratchDir,
  spawnPinned,
  spawnTracked,
  waitForLine,
} from './processes.js';
import { median } from './report.js';
import { CLI } from './servers.js';
import { checkPrerequisites, positiveInteger, shortRunSettings } from './settings.js';

const log = (line: string) => process.stdout.write(`${line}\n`);
const env = { WEBHOOKS_ALLOW_PRIVATE: 'true' };

/** A receiver answering 200 to everything, counting what it got: `GET /count` says how many. */
const RECEIVER = `
const http = require('node:http');
let count = 0;
const server = http.createServer((request, response) => {
  if (request.method === 'GET') return response.end(String(count));
  request.resume();
  request.on('end', () => { count += 1; response.end('ok'); });
});
server.listen(0, '127.0.0.1', () => console.log('listening ' + server.address().port));
`;

async function startReceiver(): Promise<string> {
  const child = spawnPinned(LOAD_CPU, process.execPath, ['-e', RECEIVER], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const port = await waitForLine(child, /^listening (\d+)$/, 10_000);
  return `http://127.0.0.1:${port}`;
}

/** Subscribes an endpoint at `url` to `category.created`, through the admin API as an operator would. */
async function subscribe(service: Embedded, url: string): Promise<string> {
  const made = spawnTracked(process.execPath, [CLI, 'admin-tokens', 'create', '--name', 'bench', '--json'], {
    env: { ...process.env, DATABASE_URL: `sqlite:${service.file}` },
  });
  const { code, stdout, stderr } = await runToCompletion(made);
  if (code !== 0) throw new Error(`petstore admin-tokens create failed (exit code ${code}):\n${stderr}`);
  const token = (JSON.parse(stdout) as { token: string }).token;
  const answer = await fetch(`${service.servers[0]?.url}/admin/v1/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${url}/in`, events: ['category.created'], description: 'bench' }),
  });
  if (answer.status !== 201)
    throw new Error(`the endpoint was not made: ${answer.status} ${await answer.text()}`);
  return ((await answer.json()) as { id: string }).id;
}

/** Deliveries by state, read from the service's file beside it (WAL: the reader does not block it). */
function deliveryStates(file: string): Map<string, number> {
  const db = new Sqlite(file, { readonly: true });
  try {
    const rows = db
      .prepare<[], { state: string; count: number }>(
        'SELECT state, count(*) AS count FROM webhook_deliveries GROUP BY state',
      )
      .all();
    return new Map(rows.map((row) => [row.state, row.count]));
  } finally {
    db.close();
  }
}

/** Waits until no delivery is pending, at most `seconds`; resolves with how long it took. */
async function drained(file: string, seconds: number): Promise<number> {
  const started = performance.now();
  while ((deliveryStates(file).get('pending') ?? 0) > 0) {
    if (performance.now() - started > seconds * 1000)
      throw new Error(`the deliveries did not drain in ${seconds} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return (performance.now() - started) / 1000;
}

/**
 * Keeps `count` events and their deliveries straight into the file, due now, as the creates' outbox keeps
 * them: a backlog as a long outage of the receiver would leave.
 */
function keepBacklog(file: string, endpointId: string, count: number): void {
  const db = new Sqlite(file);
  try {
    db.pragma('busy_timeout = 10000');
    const event = db.prepare(
      'INSERT INTO webhook_events (id, type, created_at, payload) VALUES (?, ?, ?, ?)',
    );
    const delivery = db.prepare(
      `INSERT INTO webhook_deliveries (event_id, endpoint_id, state, attempts, tries, next_attempt_at, created_at, updated_at)
       VALUES (?, ?, 'pending', 0, 0, ?, ?, ?)`,
    );
    const at = Date.now();
    db.transaction(() => {
      for (let index = 0; index < count; index += 1) {
        const id = `evt_${randomUUID().replaceAll('-', '')}`;
        const data = { id: 1_000_000 + index, name: `Backlog ${index}`, description: 'kept by the bench' };
        const payload = JSON.stringify({
          id,
          type: 'category.created',
          createdAt: new Date(at).toISOString(),
          apiVersion: 'v1',
          data,
        });
        event.run(id, 'category.created', at, payload);
        delivery.run(id, endpointId, at, at, at);
      }
    })();
  } finally {
    db.close();
  }
}

async function main(): Promise<number> {
  const settings = shortRunSettings();
  const rounds = positiveInteger('BENCH_ROUNDS', 8);
  const backlog = positiveInteger('BENCH_BACKLOG', 100_000);
  const drainSeconds = positiveInteger('BENCH_DRAIN_SECONDS', 300);
  checkPrerequisites(settings);
  const dir = scratchDir(settings.tmpdir, 'petstore-bench-webhooks-');
  log(
    `bench:webhooks: servers on CPU ${SERVER_CPU}, wrk -c${settings.connections} and the receiver on CPU ${LOAD_CPU}`,
  );

  const receiver = await startReceiver();
  const none = await startEmbedded(dir, undefined, { name: 'no endpoint', env });
  const subscribed = await startEmbedded(dir, undefined, { name: 'one endpoint', env });
  await subscribe(subscribed, receiver);
  const services = [none, subscribed] as const;
  for (const service of services) await seed(service);
  const targets = services.map((service) => targetOf(dir, service)) as [Target, Target];

  // 1. Creates, paired.
  const create: Run = { script: 'create' };
  // A whole run of each first, dropped: the first measured run of a fresh file answered twice as fast as
  // every later one (its WAL and tables still small), whichever service it was.
  for (const target of targets) {
    await warmUp(settings, target, create);
    await measureOnce(settings, target, create);
  }
  await drained(subscribed.file, drainSeconds);
  const ratios: number[] = [];
  const rates: [number[], number[]] = [[], []];
  const drains: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    const rps: number[] = [];
    for (const index of order) {
      // Every run starts with the outbox empty: the backlog a run of the subscribed service leaves drains
      // on CPU 0 too, and drained during the next run it would slow whichever service that run measures.
      drains.push(await drained(subscribed.file, drainSeconds));
      const result = await measureOnce(settings, targets[index] as Target, create);
      if ((result.statuses.get(201) ?? 0) !== result.requests) {
        throw new Error(
          `${services[index]?.name}: ${result.statuses.get(201) ?? 0} 201s of ${result.requests}`,
        );
      }
      rps[index] = result.rps;
      rates[index as 0 | 1].push(result.rps);
    }
    const [without, withOne] = rps as [number, number];
    ratios.push(withOne / without);
    log(
      `pair ${round + 1}: no endpoint ${Math.round(without)} creates/s, one endpoint ${Math.round(withOne)} creates/s: ratio ${(withOne / without).toFixed(3)}`,
    );
  }
  const createRatio = median(ratios);
  drains.push(await drained(subscribed.file, drainSeconds));
  const afterCreates = Math.max(...drains);
  const states = deliveryStates(subscribed.file);
  log(
    `creates: no endpoint ${Math.round(median(rates[0]))}/s, one endpoint ${Math.round(median(rates[1]))}/s; median of pair ratios ${createRatio.toFixed(3)} (budget 0.90); each run's deliveries drained within ${afterCreates.toFixed(1)} s after it; ${states.get('delivered') ?? 0} delivered, ${states.get('failed') ?? 0} failed`,
  );

  // 2 and 3, on a service of their own with the seeded list only: the list while a backlog drains, and the
  // rate at which a backlog drains with nothing else to do.
  const drainer = await startEmbedded(dir, undefined, { name: 'backlog', env });
  const drainerEndpoint = await subscribe(drainer, receiver);
  await seed(drainer);
  const get: Run = { script: 'get' };
  const listTarget = targetOf(dir, drainer);
  await warmUp(settings, listTarget, get);
  const quiet: number[] = [];
  const quietRuns = async () => {
    for (let run = 0; run < 3; run += 1) quiet.push((await measureOnce(settings, listTarget, get)).p99Ms);
  };
  await quietRuns();
  keepBacklog(drainer.file, drainerEndpoint, backlog);
  const busy: number[] = [];
  const busyRps: number[] = [];
  // List runs while more than a tenth of the backlog is left, so that each run overlaps the drain.
  while ((deliveryStates(drainer.file).get('pending') ?? 0) > backlog / 10 && busy.length < 20) {
    const result = await measureOnce(settings, listTarget, get);
    busy.push(result.p99Ms);
    busyRps.push(result.rps);
  }
  const leftAfterLoad = deliveryStates(drainer.file).get('pending') ?? 0;
  await drained(drainer.file, drainSeconds);
  await quietRuns();
  const ratio = median(busy) / median(quiet);
  log(
    `the list while a backlog of ${backlog} drains: p99 median ${median(busy).toFixed(2)} ms over ${busy.length} runs (${Math.round(median(busyRps))} req/s), without a backlog ${median(quiet).toFixed(2)} ms: ${ratio.toFixed(2)} (budget 1.10); ${backlog - leftAfterLoad} delivered during the list runs`,
  );

  const deliveredBefore = deliveryStates(drainer.file).get('delivered') ?? 0;
  keepBacklog(drainer.file, drainerEndpoint, backlog);
  const drainTook = await drained(drainer.file, drainSeconds);
  const delivered = (deliveryStates(drainer.file).get('delivered') ?? 0) - deliveredBefore;
  log(
    `a backlog of ${backlog} with no other load: ${delivered} delivered in ${drainTook.toFixed(1)} s, ${Math.round(delivered / drainTook)} deliveries/s (budget 1,000/s)`,
  );
  return 0;
}

runBench('bench:webhooks', main);
