/**
 * `npm run bench:request-log`: what the request log's stores cost, for the sizing table of
 * docs/request-log.md. Writes BENCH_ROWS rows shaped like the API's traffic (a UUID request id, one of 500
 * keys, one answer in ten a 404 with its message, a client's user agent) into each store in batches of
 * 5,000, as the server's writer does, then prints the bytes a row takes (indexes included), the write cost
 * per row, and the time of three searches (medians of 100): the console's commonest, one key's newest 50 in
 * the last hour; one key's newest 50 of every row kept; the newest 50 client errors of the last day. Each store is opened as the server opens it (SQLite's in a worker thread); PostgreSQL's in a fresh
 * database of BENCH_POSTGRES_URL, dropped after.
 *
 * Then the sustained rate: BENCH_RATE rows a second (25,000) for BENCH_SECONDS (60) recorded into the server's
 * own writer (`createRequestLog`, flushing every 250 ms) over a fresh SQLite store, in ticks of 10 ms as
 * traffic would, with request ids as the service makes them for clients that send none (a UUID each, the
 * first part's worst case, makes the request id index slower to write as it grows); each second it samples
 * the backlog and the process's memory, and prints rows written and dropped, the largest backlog, and the
 * main thread's busy share beside what making the rows alone costs.
 *
 * Environment: BENCH_ROWS (1,000,000), BENCH_POSTGRES_URL (postgres://postgres@127.0.0.1:5432/postgres; `off`
 * skips it), BENCH_RATE, BENCH_SECONDS (0 skips the sustained run), BENCH_TMPDIR.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { systemClock } from '../src/clock/index.js';
import { createLogger } from '../src/log/index.js';
import {
  batchOf,
  createRequestLog,
  type RequestLogStore,
  type RequestRecord,
  type RowBatch,
} from '../src/request-log/index.js';
import { openRequestLogStore, requestLogFile, Sqlite } from '../src/storage/index.js';
import { createDatabase } from './backends.js';
import { onCleanup, runBench, scratchDir } from './processes.js';
import { median } from './report.js';
import { positiveInteger, wholeNumber } from './settings.js';

const log = (line: string) => process.stdout.write(`${line}\n`);
const BATCH = 5_000;
const KEYS = 500;

/** The prefix of the sustained run's request ids, shaped as the service's own (src/http/request-id.ts). */
const ID_PREFIX = randomUUID().slice(0, 8);

const keyOf = (index: number) => `key_${String(index % KEYS).padStart(12, '0')}`;

/** The `index`th row of the traffic, `rows` of them ending now, 3 ms apart. */
function rowOf(index: number, rows: number, now: number): RequestRecord {
  const failed = index % 10 === 0;
  return {
    at: now - (rows - index) * 3,
    requestId: randomUUID(),
    keyId: keyOf(index),
    actor: null,
    client: `203.0.113.${index % 200}`,
    method: index % 5 === 0 ? 'POST' : 'GET',
    route: '/v1/pets/{petId}',
    path: `/v1/pets/${index}`,
    status: failed ? 404 : 200,
    errorCode: failed ? 'not_found' : null,
    errorMessage: failed ? `No pet has the id ${index}` : null,
    durationMs: 1.234,
    bytes: 180,
    remaining: 250,
    replayed: false,
    deprecated: false,
    instance: 'api-1.example.internal:12345',
    userAgent: 'petstore-client/1.4.0 node/24.11.0',
  };
}

/** Writes the rows in batches; answers microseconds per row. */
async function fill(add: (batch: RowBatch) => unknown, rows: number, now: number): Promise<number> {
  let spent = 0;
  for (let from = 0; from < rows; from += BATCH) {
    // Encoded as the request log encodes each row as it is answered, before the store's clock starts.
    const batch = batchOf(
      Array.from({ length: Math.min(BATCH, rows - from) }, (_row, i) => rowOf(from + i, rows, now)),
    );
    const started = performance.now();
    await add(batch);
    spent += performance.now() - started;
  }
  return (spent * 1000) / rows;
}

/** The three searches' medians, in milliseconds, as a line. */
async function search(list: RequestLogStore['list'], now: number): Promise<string> {
  const median100 = async (page: (i: number) => Parameters<RequestLogStore['list']>[0]) => {
    const times: number[] = [];
    for (let i = 0; i < 100; i += 1) {
      const started = performance.now();
      await list(page(i));
      times.push(performance.now() - started);
    }
    return median(times).toFixed(2);
  };
  const hour = await median100((i) => ({ keyId: keyOf(i * 7), from: now - 3_600_000, to: now, limit: 50 }));
  const all = await median100((i) => ({ keyId: keyOf(i * 7), limit: 50 }));
  const errors = await median100(() => ({
    status: { from: 400, to: 499 },
    from: now - 86_400_000,
    limit: 50,
  }));
  return `newest 50 of a key in an hour ${hour} ms, of a key ever ${all} ms, 4xx of a day ${errors} ms`;
}

/** The sustained run: see the file's comment. */
async function sustain(dir: string, rate: number, seconds: number): Promise<void> {
  const store = await openRequestLogStore({
    kind: 'sqlite',
    file: path.join(dir, 'sustained.db'),
    isDefault: false,
    dataDir: dir,
  });
  const outcomes = { written: 0, dropped: 0, sampled: 0, evicted: 0 };
  const requestLog = createRequestLog({
    store,
    clock: systemClock,
    logger: createLogger({ level: 'warn' }),
    days: 7,
    maxBytes: 1024 * 1024 * 1024,
    counted: (outcome, rows) => {
      outcomes[outcome] += rows;
    },
  });
  requestLog.start();
  const TICK_MS = 10;
  const perTick = Math.round((rate * TICK_MS) / 1000);
  const backlogs: number[] = [];
  const rss: number[] = [];
  let making = 0;
  let offered = 0;
  const started = performance.now();
  const busy = performance.eventLoopUtilization();
  let nextSample = started + 1000;
  // Each tick records the rows due by now, so a late tick catches up as traffic that queued would.
  while (performance.now() - started < seconds * 1000) {
    const due = Math.floor(((performance.now() - started) / TICK_MS) * perTick);
    const making0 = performance.now();
    const rows = Array.from({ length: due - offered }, (_row, i) => ({
      ...rowOf(offered + i, offered + i, Date.now()),
      requestId: `${ID_PREFIX}-${(offered + i).toString(36)}`,
    }));
    making += performance.now() - making0;
    for (const row of rows) requestLog.record(row);
    offered = due;
    if (performance.now() >= nextSample) {
      backlogs.push(requestLog.backlog());
      rss.push(process.memoryUsage().rss);
      nextSample += 1000;
    }
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
  const elapsed = performance.now() - started;
  const utilization = performance.eventLoopUtilization(busy).utilization;
  await requestLog.stop();
  const mb = (bytes: number) => (bytes / 1048576).toFixed(0);
  log(
    `sustained:  ${offered} rows in ${(elapsed / 1000).toFixed(1)} s (${Math.round((offered * 1000) / elapsed)}/s): ` +
      `${outcomes.written} written, ${outcomes.dropped} dropped; backlog each second at most ${Math.max(...backlogs)}, ` +
      `last ${backlogs.at(-1)} (every 10 s: ${backlogs.filter((_b, i) => i % 10 === 9).join(', ')}); RSS ${mb(Math.min(...rss))} to ${mb(Math.max(...rss))} MB; main thread busy ` +
      `${(utilization * 100).toFixed(0)}% (making the rows: ${((making / elapsed) * 100).toFixed(0)}%)`,
  );
}

async function main(): Promise<number> {
  const rows = positiveInteger('BENCH_ROWS', 1_000_000);
  const now = Date.now();
  log(`bench:request-log: ${rows} rows a store, in batches of ${BATCH}; ${os.cpus()[0]?.model ?? ''}`);

  const dir = scratchDir(process.env.BENCH_TMPDIR ?? os.tmpdir(), 'petstore-bench-log-');
  const database = path.join(dir, 'bench.db');
  const sqlite = await openRequestLogStore({
    kind: 'sqlite',
    file: database,
    isDefault: false,
    dataDir: dir,
  });
  const sqliteWrite = await fill((batch) => sqlite.add(batch), rows, now);
  const sqliteSearch = await search((page) => sqlite.list(page), now);
  await sqlite.close();
  const db = new Sqlite(requestLogFile(database));
  db.pragma('wal_checkpoint(TRUNCATE)');
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const pages = db.pragma('page_count', { simple: true }) as number;
  const used = (pages - (db.pragma('freelist_count', { simple: true }) as number)) * pageSize;
  db.close();
  log(
    `sqlite:     ${(used / rows).toFixed(0)} bytes a row, ${sqliteWrite.toFixed(1)} us a row written, ${sqliteSearch}`,
  );

  const seconds = wholeNumber('BENCH_SECONDS', 60);
  if (seconds > 0) await sustain(dir, positiveInteger('BENCH_RATE', 25_000), seconds);

  const admin = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  if (admin === 'off') return 0;
  const fresh = createDatabase(admin);
  onCleanup(fresh.drop);
  const store = await openRequestLogStore({ kind: 'postgres', url: fresh.url, poolSize: 2 });
  try {
    const postgresWrite = await fill((batch) => store.add(batch), rows, now);
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: fresh.url });
    await client.connect();
    await client.query('VACUUM ANALYZE request_log');
    const { rows: sized } = await client.query<{ bytes: string }>(
      "SELECT sum(pg_total_relation_size(inhrelid))::bigint AS bytes FROM pg_inherits WHERE inhparent = 'request_log'::regclass",
    );
    await client.end();
    const postgresSearch = await search((page) => store.list(page), now);
    log(
      `postgresql: ${(Number(sized[0]?.bytes) / rows).toFixed(0)} bytes a row, ${postgresWrite.toFixed(1)} us a row written, ${postgresSearch}`,
    );
  } finally {
    await store.close();
  }
  return 0;
}

runBench('bench:request-log', main);
