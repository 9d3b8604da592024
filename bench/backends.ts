/**
 * The machine's PostgreSQL and Redis, reached through `psql` and `redis-cli`. Synchronous on purpose: the
 * database and the keys must go however the bench ends, and cleanups also run from the `exit` event, where
 * nothing asynchronous gets a turn. None of this runs while wrk measures.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });
  if (result.error !== undefined) throw new Error(`${command} failed: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.slice(-2).join(' ')} exited with ${result.status}: ${result.stderr.trim()}`,
    );
  }
  return result.stdout.trim();
}

/** One statement through psql: no psqlrc, unaligned, values only, stop on the first error. */
function psql(url: string, sql: string): string {
  return run('psql', ['-X', '-A', '-t', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', sql]);
}

function redisCli(url: string, args: string[]): string {
  return run('redis-cli', ['-u', url, '--no-auth-warning', ...args]);
}

/** Fails early, with the fix, when the two-instance mode cannot run. */
export function checkBackends(postgresUrl: string, redisUrl: string): void {
  const skip = 'or set BENCH_SCALE=off to measure the embedded mode only';
  try {
    psql(postgresUrl, 'SELECT 1');
  } catch (error) {
    throw new Error(
      `PostgreSQL at ${postgresUrl} is not usable (${(error as Error).message}); start it, ${skip}`,
    );
  }
  if (redisCli(redisUrl, ['PING']) !== 'PONG') {
    throw new Error(`Redis at ${redisUrl} did not answer PING; start it, ${skip}`);
  }
}

export interface Database {
  url: string;
  /** Drops the database, closing any connection still open to it. */
  drop(): void;
}

/** A fresh, empty database of its own for one bench run, named so that it cannot collide with another. */
export function createDatabase(adminUrl: string): Database {
  const name = `petstore_bench_${randomBytes(6).toString('hex')}`;
  psql(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => psql(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export interface PostgresDurability {
  synchronousCommit: string;
  fsync: string;
  /** Where PostgreSQL keeps its data and WAL: the disk whose flushes show its commits. */
  dataDirectory: string;
}

/** The settings that decide whether a COMMIT is on disk when it returns, as the server reports them. */
export function postgresDurability(url: string): PostgresDurability {
  const [synchronousCommit = '', fsync = '', dataDirectory = ''] = psql(
    url,
    "SELECT current_setting('synchronous_commit'), current_setting('fsync'), current_setting('data_directory')",
  ).split('|');
  return { synchronousCommit, fsync, dataDirectory };
}

/** Rows in the categories table: what was committed, whatever the answers said. */
export function countCategories(url: string): number {
  return Number(psql(url, 'SELECT count(*) FROM categories'));
}

export interface RedisPrefix {
  prefix: string;
  /** How many keys exist under the prefix. */
  count(): number;
  /** Deletes every key under the prefix. */
  clear(): void;
}

/** A key prefix of its own for one bench run, in the form REDIS_PREFIX accepts. */
export function createRedisPrefix(url: string): RedisPrefix {
  const prefix = `bench:${randomBytes(6).toString('hex')}:`;
  // SCAN, not KEYS: the Redis may be shared, and KEYS blocks it while it walks every key.
  const keys = () =>
    redisCli(url, ['--scan', '--pattern', `${prefix}*`])
      .split('\n')
      .filter(Boolean);
  return {
    prefix,
    count: () => keys().length,
    clear() {
      const found = keys();
      for (let i = 0; i < found.length; i += 500) redisCli(url, ['DEL', ...found.slice(i, i + 500)]);
    },
  };
}

/**
 * Script calls (EVALSHA and EVAL) Redis has served since it started, from INFO commandstats. The service
 * makes one per rate-limited request, so the difference over a run, per request, shows the round trips it
 * paid. Counted over the whole Redis, which other clients may share.
 */
export function redisScriptCalls(url: string): number {
  let calls = 0;
  for (const line of redisCli(url, ['INFO', 'commandstats']).split('\n')) {
    const match = /^cmdstat_(?:evalsha|eval):calls=(\d+)/.exec(line.trim());
    if (match?.[1] !== undefined) calls += Number(match[1]);
  }
  return calls;
}

/**
 * Transaction ids PostgreSQL has handed out so far: the next one, read without taking one. Every write
 * transaction takes one, so the difference over a run, per create, shows the commits it paid. Counted over
 * the whole server, which other databases may share.
 */
export function postgresWriteTransactions(url: string): number {
  return Number(psql(url, 'SELECT pg_snapshot_xmax(pg_current_snapshot())'));
}
