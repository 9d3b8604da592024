import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import { awaitMinuteRoom, REDIS_URL } from '../support/backends.js';
import { awaitKeyEverywhere, createKey, startFleet } from '../support/fleet.js';

const REQUESTS = 1_000;
const CONCURRENCY = 20;

/** The mix: answers of every outcome but 5xx, and quota-free calls beside counted ones. */
const MIX: { method: string; path: string; body?: string }[] = [
  { method: 'GET', path: '/v1/categories' },
  { method: 'GET', path: '/v1/pets/999999' },
  { method: 'GET', path: '/v1/pets?status=lost' },
  { method: 'GET', path: '/v1/key' },
  { method: 'POST', path: '/v1/categories', body: '{"name":""}' },
];

function send(agent: http.Agent, base: string, key: string, index: number): Promise<number> {
  const { method, path, body } = MIX[index % MIX.length] as (typeof MIX)[number];
  return new Promise((resolve, reject) => {
    const sent = http.request(
      `${base}${path}`,
      {
        agent,
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

describe('usage counts with several instances writing', () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let redis: Redis;
  before(() => {
    redis = new Redis(REDIS_URL);
  });
  after(() => {
    redis.disconnect();
    agent.destroy();
  });

  test(`exact after ${REQUESTS} mixed requests across two instances on PostgreSQL + Redis`, async (t) => {
    const fleet = await startFleet([0, 0]);
    t.after(() => fleet.stop());
    // A limit the mix passes within the window, so some answers are 429.
    const { key, id } = await createKey(
      fleet.env,
      '--plan',
      'enterprise',
      '--per-minute',
      '500',
      '--per-day',
      '1000000',
    );
    await awaitKeyEverywhere(fleet.servers, key);
    await awaitMinuteRoom(redis, 40_000);
    // awaitKeyEverywhere spent one request per instance: counted from here on, with those.
    const expected = { success: fleet.servers.length, clientErrors: 0, rateLimited: 0, serverErrors: 0 };
    let next = 0;
    async function client() {
      while (next < REQUESTS) {
        const index = next++;
        const server = fleet.servers[index % fleet.servers.length] as (typeof fleet.servers)[number];
        const status = await send(agent, server.url, key, index);
        if (status === 429) expected.rateLimited += 1;
        else if (status >= 500) expected.serverErrors += 1;
        else if (status >= 400) expected.clientErrors += 1;
        else expected.success += 1;
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, client));
    assert.ok(expected.rateLimited > 0 && expected.clientErrors > 0, 'the mix has every outcome but 5xx');

    const db = new pg.Client({ connectionString: fleet.env.DATABASE_URL });
    await db.connect();
    try {
      await assertStored(db, id, expected);
    } finally {
      await db.end();
    }
  });
});

async function assertStored(db: pg.Client, id: string, expected: Record<string, number>): Promise<void> {
  const stored = async () => {
    const { rows } = await db.query<Record<string, string>>(
      `SELECT COALESCE(SUM(success), 0) AS success, COALESCE(SUM(client_errors), 0) AS client_errors,
                COALESCE(SUM(rate_limited), 0) AS rate_limited, COALESCE(SUM(server_errors), 0) AS server_errors,
                COUNT(*) AS days
           FROM key_usage WHERE key_id = $1`,
      [id],
    );
    const row = rows[0] as Record<string, string>;
    return {
      counts: {
        success: Number(row.success),
        clientErrors: Number(row.client_errors),
        rateLimited: Number(row.rate_limited),
        serverErrors: Number(row.server_errors),
      },
      days: Number(row.days),
    };
  };
  // Each instance flushes every 2 s: within a few seconds every count is stored, and none twice.
  const deadline = Date.now() + 10_000;
  let seen = await stored();
  while (JSON.stringify(seen.counts) !== JSON.stringify(expected) && Date.now() < deadline) {
    await sleep(250);
    seen = await stored();
  }
  assert.deepEqual(seen.counts, expected);
  assert.equal(seen.days, 1, 'one row per key and day');
  // And it stays exact: a later flush adds nothing that was already added.
  await sleep(2_500);
  assert.deepEqual((await stored()).counts, expected);

  // No write per request: the usage table saw a handful of flushes, not a thousand updates.
  await sleep(1_000);
  const { rows } = await db.query<{ writes: string }>(
    "SELECT n_tup_ins + n_tup_upd AS writes FROM pg_stat_user_tables WHERE relname = 'key_usage'",
  );
  assert.ok(Number(rows[0]?.writes) < 100, `${rows[0]?.writes} writes to key_usage`);
  const lastUsed = await db.query<{ last_used_at: string | null }>(
    'SELECT last_used_at FROM api_keys WHERE id = $1',
    [id],
  );
  assert.ok(lastUsed.rows[0]?.last_used_at !== null, 'the last use is stored');
}
