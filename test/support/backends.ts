import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import { Sqlite } from '../../src/storage/index.js';

/** The machine's PostgreSQL and Redis (`.ci/run` starts them if they are down). */
export const POSTGRES_ADMIN_URL =
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface Backend {
  name: string;
  storage: 'sqlite' | 'postgres';
  limiter: 'memory' | 'redis';
}

/** Every suite that touches storage or limits runs once per backend (STYLE.md: "No mocks"). */
export const BACKENDS: readonly Backend[] = [
  { name: 'sqlite + memory', storage: 'sqlite', limiter: 'memory' },
  { name: 'postgres + redis', storage: 'postgres', limiter: 'redis' },
];

export const SQLITE_MEMORY = BACKENDS[0] as Backend;

/**
 * Runs `sql` (with `values` for its `$1`…) on a connection of its own to the PostgreSQL database at `url`, as
 * another process would, and returns its rows.
 */
export async function queryPostgres<T>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Runs `sql` on a read-only connection of its own to the SQLite file `file`, and returns its rows. */
export function querySqlite<T>(file: string, sql: string): T[] {
  const db = new Sqlite(file, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

/** A fresh, empty database for one test server; `drop` removes it. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `petstore_test_${randomBytes(6).toString('hex')}`;
  await queryPostgres(POSTGRES_ADMIN_URL, `CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await queryPostgres(POSTGRES_ADMIN_URL, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** A Redis key prefix of its own for one test server; `clear` deletes every key under it. */
export function createTestRedisPrefix(): { prefix: string; clear: () => Promise<void> } {
  const prefix = `petstore-test:${randomBytes(6).toString('hex')}:`;
  return {
    prefix,
    async clear() {
      const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await redis.connect();
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
          if (keys.length > 0) await redis.del(...keys);
          cursor = next;
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
    },
  };
}

/** The environment that points a server at a backend, and how to clean up after it. */
export async function backendEnvironment(
  backend: Backend,
  sqliteFile: string,
): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  const env: Record<string, string> = {};
  const cleanups: (() => Promise<void>)[] = [];
  if (backend.storage === 'postgres') {
    const database = await createTestDatabase();
    env.DATABASE_URL = database.url;
    env.DATABASE_POOL_SIZE = '5';
    cleanups.push(database.drop);
  } else {
    env.DATABASE_URL = `sqlite:${sqliteFile}`;
  }
  if (backend.limiter === 'redis') {
    const redis = createTestRedisPrefix();
    env.REDIS_URL = REDIS_URL;
    env.REDIS_PREFIX = redis.prefix;
    cleanups.push(redis.clear);
  }
  return {
    env,
    async cleanup() {
      for (const cleanup of cleanups) await cleanup();
    },
  };
}

/** Waits until at least `ms` are left in the current minute of Redis's clock, so a trial stays in one window. */
export async function awaitMinuteRoom(redis: Redis, ms: number): Promise<void> {
  const [seconds, micros] = await redis.time();
  const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  const left = 60_000 - (now % 60_000);
  if (left < ms) await sleep(left + 50);
}

/** `awaitMinuteRoom` on a connection of its own to this machine's Redis, for a test that holds none. */
export async function awaitRedisMinuteRoom(ms: number): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    await awaitMinuteRoom(redis, ms);
  } finally {
    redis.disconnect();
  }
}

/**
 * The same on this machine's clock, which the in-memory limiter of a test server reads: waits until at least
 * `ms` are left in the current minute.
 */
export async function awaitLocalMinuteRoom(ms: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < ms) await sleep(left + 50);
}
