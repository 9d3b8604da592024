import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { TalliedCounter, TalliedHistogram } from './tally.js';

/** A connection pool as its gauges show it. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/** The metrics of one process, with prom-client, in a registry of its own (several servers share a test process). */
export interface Metrics {
  readonly contentType: string;
  deprecatedCalls: Counter<'operation' | 'key_id'>;
  rateLimitFailOpen: Counter;
  requests: TalliedCounter<'operation' | 'method' | 'status'>;
  requestDuration: TalliedHistogram<'operation'>;
  /** Every answer given so far, as a plain count: what tells the webhooks' dispatcher that the API is busy. */
  answers: { count: number };
  rateLimitDecisions: TalliedCounter<'outcome'>;
  storageCalls: Histogram<'call'>;
  redisCalls: Histogram<'call'>;
  keyReloads: Counter;
  /** Rows of the request log written, and those dropped because its writer fell behind (never a request held). */
  requestLogRows: Counter<'outcome'>;
  /** Shows a connection pool in the pool gauges (PostgreSQL), read at each scrape. */
  watchPool(stats: () => PoolStats): void;
  /** Shows the custom domains per state in `petstore_domains`, read at each scrape. */
  watchDomains(counts: () => Readonly<Record<string, number>>): void;
  /** Shows the request log's rows waiting for its store in `petstore_request_log_backlog_rows`. */
  watchRequestLog(backlog: () => number): void;
  /** Everything, in the Prometheus text format. */
  render(): Promise<string>;
}

/** Seconds, from 0.5 ms to 10 s: an answer from memory to a request that hit the timeout. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds, from 0.1 ms: a Redis round trip on the same machine takes about that. */
const CALL_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  let pool: (() => PoolStats) | undefined;
  const poolGauge = (name: string, help: string, read: (stats: PoolStats) => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        if (pool !== undefined) this.set(read(pool()));
      },
    });
  let domains: (() => Readonly<Record<string, number>>) | undefined;
  new Gauge({
    name: 'petstore_domains',
    help: 'Custom domains, by state.',
    labelNames: ['state'] as const,
    registers,
    collect() {
      if (domains === undefined) return;
      for (const [state, count] of Object.entries(domains())) this.set({ state }, count);
    },
  });
  let requestLogBacklog: (() => number) | undefined;
  new Gauge({
    name: 'petstore_request_log_backlog_rows',
    help: 'Rows of the request log answered and not yet written; past 100,000 new rows are dropped.',
    registers,
    collect() {
      if (requestLogBacklog !== undefined) this.set(requestLogBacklog());
    },
  });
  poolGauge('petstore_db_pool_connections', 'PostgreSQL connections open, idle or in use.', (s) => s.total);
  poolGauge('petstore_db_pool_idle', 'PostgreSQL connections open and idle.', (s) => s.idle);
  poolGauge('petstore_db_pool_waiting', 'Queries waiting for a PostgreSQL connection.', (s) => s.waiting);
  return {
    contentType: registry.contentType,
    answers: { count: 0 },
    deprecatedCalls: new Counter({
      name: 'petstore_deprecated_calls_total',
      help: 'Calls of deprecated operations, by operation and API key id.',
      labelNames: ['operation', 'key_id'] as const,
      registers,
    }),
    rateLimitFailOpen: new Counter({
      name: 'petstore_ratelimit_fail_open_total',
      help: 'Requests served on per-instance limits because the shared rate-limit store was unreachable.',
      registers,
    }),
    requests: new TalliedCounter({
      name: 'petstore_http_requests_total',
      help: 'Answers, by operation (its operationId, or the route outside the APIs; "none" for no route), method and status.',
      labelNames: ['operation', 'method', 'status'] as const,
      registers,
    }),
    requestDuration: new TalliedHistogram({
      name: 'petstore_http_request_duration_seconds',
      help: 'From the request arriving to its answer being handed to the socket, by operation.',
      buckets: REQUEST_BUCKETS,
      registers,
    }),
    rateLimitDecisions: new TalliedCounter({
      name: 'petstore_ratelimit_decisions_total',
      help: 'Rate-limit decisions: allowed, limited or banned for keys and admin tokens; anonymous for the rest.',
      labelNames: ['outcome'] as const,
      registers,
    }),
    storageCalls: new Histogram({
      name: 'petstore_storage_call_duration_seconds',
      help: 'Calls to storage, by repository and method (such as pets.list, or create).',
      labelNames: ['call'] as const,
      buckets: CALL_BUCKETS,
      registers,
    }),
    redisCalls: new Histogram({
      name: 'petstore_redis_call_duration_seconds',
      help: 'Calls to the shared rate-limit store in Redis, by call (hit, peek, unban).',
      labelNames: ['call'] as const,
      buckets: CALL_BUCKETS,
      registers,
    }),
    keyReloads: new Counter({
      name: 'petstore_key_reloads_total',
      help: 'Rereads of the API keys after their stored version moved.',
      registers,
    }),
    requestLogRows: new Counter({
      name: 'petstore_request_log_rows_total',
      help: 'Rows of the request log: written; dropped (its writer fell behind or failed); sampled (a client without a credential past 10 rows a second, counted, not kept); evicted (deleted by REQUEST_LOG_MAX_MB before REQUEST_LOG_DAYS).',
      labelNames: ['outcome'] as const,
      registers,
    }),
    watchPool(stats) {
      pool = stats;
    },
    watchDomains(counts) {
      domains = counts;
    },
    watchRequestLog(backlog) {
      requestLogBacklog = backlog;
    },
    render: () => registry.metrics(),
  };
}
