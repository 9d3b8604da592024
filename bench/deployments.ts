import path from 'node:path';
import {
  countCategories,
  createDatabase,
  createRedisPrefix,
  postgresWriteTransactions,
  type RedisPrefix,
  redisScriptCalls,
} from './backends.js';
import { request } from './http.js';
import { onCleanup, stopChild } from './processes.js';
import { assertRunning, createUnlimitedKey, type Server, startService } from './servers.js';

export const LIST_PATH = '/v1/categories';
const SEEDED = 100;

/** The service as one deployment runs it: the processes wrk loads and the key every request sends. */
export interface Deployment {
  name: string;
  servers: Server[];
  key: string;
  /** Whether it keeps its state in PostgreSQL and Redis, whose CPU time is then its own. */
  backends: boolean;
}

export interface Embedded extends Deployment {
  /** The SQLite file the service writes. */
  file: string;
}

export interface Scaled extends Deployment {
  /** The database the instances share. */
  databaseUrl: string;
  redis: RedisPrefix;
  /** Redis script calls and PostgreSQL write transactions so far, to count what a run paid per request. */
  counters(): SharedStateCounters;
}

export interface SharedStateCounters {
  redisCalls: number;
  writeTransactions: number;
}

/**
 * The embedded mode: one process with its SQLite file and in-process limits; `variant` names another
 * configuration of it (its own file, and `env` on top of the defaults).
 */
export async function startEmbedded(
  dir: string,
  cpuProfileDir: string | undefined,
  variant: { name: string; env: Record<string, string>; cli?: string } = { name: 'embedded', env: {} },
): Promise<Embedded> {
  const file = path.join(dir, `${variant.name.replace(/\W+/g, '-')}.db`);
  const env = { ...variant.env, DATABASE_URL: `sqlite:${file}` };
  const key = await createUnlimitedKey(env, variant.cli);
  const server = await startService(env, cpuProfileDir, variant.cli);
  return { name: variant.name, servers: [server], key, backends: false, file };
}

/**
 * The scale-out mode: two instances sharing one fresh PostgreSQL database and one Redis prefix, both removed
 * however the bench ends. The database is migrated and the key created first, by the CLI.
 */
export async function startScaled(
  backends: { postgresUrl: string; redisUrl: string },
  cpuProfileDir: string | undefined,
): Promise<Scaled> {
  const database = createDatabase(backends.postgresUrl);
  onCleanup(database.drop);
  const redis = createRedisPrefix(backends.redisUrl);
  onCleanup(redis.clear);
  const env = { DATABASE_URL: database.url, REDIS_URL: backends.redisUrl, REDIS_PREFIX: redis.prefix };
  const key = await createUnlimitedKey(env);
  const servers = await Promise.all([startService(env, cpuProfileDir), startService(env, cpuProfileDir)]);
  return {
    name: '2 instances',
    servers,
    key,
    backends: true,
    databaseUrl: database.url,
    redis,
    counters: () => ({
      redisCalls: redisScriptCalls(backends.redisUrl),
      writeTransactions: postgresWriteTransactions(database.url),
    }),
  };
}

const authorization = (deployment: Deployment) => ({ authorization: `Bearer ${deployment.key}` });

/** The server the bench seeds and reads through; wrk and the checks reach the others too. */
export function firstServer(deployment: Deployment): Server {
  const [server] = deployment.servers;
  if (server === undefined) throw new Error(`${deployment.name} has no server`);
  return server;
}

/** Creates the categories the list benchmark reads, through the first server. */
export async function seed(deployment: Deployment): Promise<void> {
  const server = firstServer(deployment);
  for (let i = 1; i <= SEEDED; i += 1) {
    const n = String(i).padStart(3, '0');
    // About 110 bytes per entry, so the list is near the 10.9 KB of BENCHMARKS.md.
    const body = JSON.stringify({
      name: `Category ${n}`,
      description: `Seeded category ${n} of the list benchmark, short text`,
    });
    const response = await request(`${server.url}${LIST_PATH}`, {
      method: 'POST',
      headers: { ...authorization(deployment), 'content-type': 'application/json' },
      body,
    });
    if (response.status !== 201)
      throw new Error(`seeding: POST answered ${response.status}: ${response.body}`);
  }
}

export interface ListSnapshot {
  body: Buffer;
  contentType: string;
  etag: string;
  /** The answer's own headers, without those Node writes itself (Date, Connection, Keep-Alive, length). */
  headers: Record<string, string>;
  /** The keep-alive timeout the service announces, so that an anchor can announce the same. */
  keepAliveSeconds: number | undefined;
  /** The headers of the 304 that the ETag earns, as `headers` are kept. */
  notModifiedHeaders: Record<string, string>;
}

const WRITTEN_BY_NODE = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** An answer's headers without those Node writes itself. */
function ownHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const own: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string' && !WRITTEN_BY_NODE.has(name)) own[name] = value;
  }
  return own;
}

export async function fetchList(deployment: Deployment, server: Server): Promise<ListSnapshot> {
  const response = await request(`${server.url}${LIST_PATH}`, { headers: authorization(deployment) });
  const { etag, 'content-type': contentType, 'keep-alive': keepAlive } = response.headers;
  if (response.status !== 200 || etag === undefined || contentType === undefined) {
    throw new Error(`GET ${LIST_PATH} answered ${response.status} without ETag or content type`);
  }
  const notModified = await request(`${server.url}${LIST_PATH}`, {
    headers: { ...authorization(deployment), 'if-none-match': etag },
  });
  if (notModified.status !== 304)
    throw new Error(`GET ${LIST_PATH} with its ETag answered ${notModified.status}`);
  const timeout = /timeout=(\d+)/.exec(String(keepAlive ?? ''))?.[1];
  return {
    body: response.body,
    contentType,
    etag,
    headers: ownHeaders(response.headers),
    keepAliveSeconds: timeout === undefined ? undefined : Number(timeout),
    notModifiedHeaders: ownHeaders(notModified.headers),
  };
}

/**
 * Fails unless every server of the deployment answers the list with the embedded service's bytes: the
 * anchor answers those bytes, and a ratio to it means something only for the same payload.
 */
export async function assertSameList(deployment: Deployment, expected: ListSnapshot): Promise<void> {
  for (const server of deployment.servers) {
    const list = await fetchList(deployment, server);
    if (!list.body.equals(expected.body) || list.etag !== expected.etag) {
      throw new Error(
        `${deployment.name}: ${server.url} answers a list (${list.body.length} bytes, ETag ${list.etag}) other than the embedded service's (${expected.body.length} bytes, ETag ${expected.etag})`,
      );
    }
  }
}

/** Categories stored: from the database in the scale-out mode, from the list otherwise. */
export async function countRows(deployment: Embedded | Scaled): Promise<number> {
  if ('databaseUrl' in deployment) return countCategories(deployment.databaseUrl);
  const { status, body } = await request(`${firstServer(deployment).url}${LIST_PATH}`, {
    headers: authorization(deployment),
  });
  if (status !== 200) throw new Error(`GET ${LIST_PATH} answered ${status}`);
  return (JSON.parse(body.toString('utf8')) as unknown[]).length;
}

export function assertDeploymentRunning(deployment: Deployment): void {
  deployment.servers.forEach((server, i) => {
    assertRunning(server, `${deployment.name} server ${i + 1}`);
  });
}

/** A clean stop lets each server close its storage, and write its CPU profile if asked. */
export async function stopDeployment(deployment: Deployment): Promise<void> {
  await Promise.all(deployment.servers.map((server) => stopChild(server.child)));
}

/** Requests a server served on its own limits because Redis was unreachable, from its /metrics. */
async function failOpenRequests(server: Server): Promise<number> {
  const { status, body } = await request(`${server.url}/metrics`);
  const match = /^petstore_ratelimit_fail_open_total (\d+)$/m.exec(body.toString('utf8'));
  if (status !== 200 || match?.[1] === undefined) throw new Error(`GET /metrics answered ${status}`);
  return Number(match[1]);
}

/**
 * What the scale-out figures alone would hide: requests served without Redis (RATE_LIMIT_FAIL=open keeps
 * serving on per-instance limits, which skips the round trip being measured), and limits that never reached
 * Redis at all.
 */
export async function sharedLimitProblems(scaled: Scaled): Promise<string[]> {
  const problems: string[] = [];
  for (const [i, server] of scaled.servers.entries()) {
    const failOpen = await failOpenRequests(server);
    if (failOpen > 0) {
      problems.push(`${scaled.name}: server ${i + 1} served ${failOpen} requests without Redis (fail-open)`);
    }
  }
  if (scaled.redis.count() === 0) {
    problems.push(`${scaled.name}: no rate-limit key under ${scaled.redis.prefix} in Redis`);
  }
  return problems;
}

/** The row count and ETag each server lists. */
async function listedBy(scaled: Scaled): Promise<{ rows: number; etag: string }[]> {
  return Promise.all(
    scaled.servers.map(async (server) => {
      const list = await fetchList(scaled, server);
      return { rows: (JSON.parse(list.body.toString('utf8')) as unknown[]).length, etag: list.etag };
    }),
  );
}

/**
 * After creates through both instances, each must list every committed row: an instance learns of the
 * other's writes only through PostgreSQL's NOTIFY, so a lost notification would leave its cached list
 * stale. Notifications take a moment, hence the polling; two seconds is far more than they need.
 */
export async function staleListProblem(scaled: Scaled): Promise<string | undefined> {
  const deadline = Date.now() + 2_000;
  for (;;) {
    const rows = countCategories(scaled.databaseUrl);
    const lists = await listedBy(scaled);
    if (lists.every((list) => list.rows === rows && list.etag === lists[0]?.etag)) return undefined;
    if (Date.now() > deadline) {
      const seen = lists.map((list, i) => `server ${i + 1} lists ${list.rows} (ETag ${list.etag})`);
      return `${scaled.name}: ${rows} categories committed, but ${seen.join(', ')} 2 s after the last create`;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
