import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { eventually } from '../support/assertions.js';
import { createTestRedisPrefix, REDIS_URL } from '../support/backends.js';
import { startPrivatePostgres } from '../support/private-servers.js';
import { createUnlimitedKey, runCli, type ServerProcess, spawnServer } from '../support/process.js';
import { request } from '../support/server.js';
import { type Received, startWebhookReceiver } from '../support/webhook-receiver.js';

/** Creates acknowledged before the crash: the backlog. */
const BACKLOG = 300;
/** Creates under way at once, spread over both instances. */
const WORKERS = 8;
/** Requests the receiver answers before it holds the rest: the drain has begun when PostgreSQL dies. */
const ANSWERED_FIRST = 60;
/** How long PostgreSQL stays down, at least. */
const OUTAGE_MS = 3_000;

/**
 * Issue 42's bar for webhooks through a database crash: PostgreSQL (a private server, never the machine's)
 * is killed mid-backlog, with attempts under way whose answers come while it is down, so their records are
 * lost, and deliveries still waiting in the outbox. Once it is back, every event acknowledged with 201 is
 * delivered, and the instances answer again. While it is down they answer 503, as for any request.
 */
test(`PostgreSQL killed mid-backlog of ${BACKLOG} events: nothing lost after it returns`, async (t) => {
  const database = await startPrivatePostgres();
  const redis = createTestRedisPrefix();
  let servers: ServerProcess[] = [];
  // The receiver answers the first requests, then holds every other until the test opens its gate.
  let openGate = () => {};
  const gate = new Promise<void>((resolve) => {
    openGate = resolve;
  });
  const receiver = await startWebhookReceiver({ delay: (index) => (index < ANSWERED_FIRST ? 0 : gate) });
  // The instances first, then what they used.
  t.after(async () => {
    for (const server of servers) server.child.kill('SIGKILL');
    await Promise.all(servers.map((server) => server.exited));
    await receiver.close();
    await database.stop();
    await redis.clear();
  });
  const env = {
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: '4',
    REDIS_URL,
    REDIS_PREFIX: redis.prefix,
    LOG_LEVEL: 'info',
    ACCESS_LOG: 'off',
    WEBHOOKS_ALLOW_PRIVATE: 'true',
    // An attempt whose record died with the database is sent again once its lease runs out: 15 s, not the
    // minute, and still past an attempt's 10 s timeout, so that no attempt outlives its lease. Retries (of an
    // attempt held past its timeout on a slow machine) come within a second.
    WEBHOOKS_LEASE_MS: '15000',
    WEBHOOKS_RETRY_DELAYS_MS: Array(9).fill('500').join(','),
  };
  const key = await createUnlimitedKey(env);
  const made = await runCli(['admin-tokens', 'create', '--name', 'outage hooks', '--json'], env);
  assert.equal(made.code, 0, made.stderr);
  const admin = { authorization: `Bearer ${(JSON.parse(made.stdout) as { token: string }).token}` };
  const started = await Promise.allSettled([spawnServer(env), spawnServer(env)]);
  servers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  for (const result of started) if (result.status === 'rejected') throw result.reason;
  const [first, second] = servers as [ServerProcess, ServerProcess];

  const endpoint = await request(`${first.url}/admin/v1/webhooks`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${receiver.url}/outage`, events: ['category.created'] }),
  });
  assert.equal(endpoint.status, 201, endpoint.text);
  const { id: endpointId, secret } = endpoint.body as { id: string; secret: string };

  /** A create as a careful client makes it: one Idempotency-Key, retried on 503 and lost connections. */
  const created = new Set<number>();
  const createOnce = async (server: ServerProcess, name: string, deadline: number) => {
    const idempotencyKey = randomUUID();
    for (;;) {
      const answer = await request(`${server.url}/v1/categories`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'idempotency-key': idempotencyKey,
        },
        body: JSON.stringify({ name }),
      }).catch(() => undefined);
      if (answer?.status === 201) {
        created.add((answer.body as { id: number }).id);
        return;
      }
      if (answer !== undefined) assert.ok([409, 503].includes(answer.status), `${name}: ${answer.text}`);
      assert.ok(Date.now() < deadline, `${name} was never created`);
      await sleep(200);
    }
  };

  let next = 0;
  const worker = async () => {
    for (let n = next++; n < BACKLOG; n = next++) {
      await createOnce(servers[n % 2] as ServerProcess, `backlog ${n}`, Date.now() + 30_000);
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));

  // Mid-drain: the first answers are given, attempts are held open at the receiver, the rest wait their turn.
  await eventually(
    'the drain has begun',
    () => receiver.received.length > ANSWERED_FIRST && receiver.open() > 0,
    30_000,
  );
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const { rows } = await client.query<{ state: string; count: string }>(
    'SELECT state, count(*) FROM webhook_deliveries GROUP BY state ORDER BY state',
  );
  await client.end();
  const before = Object.fromEntries(rows.map((row) => [row.state, Number(row.count)]));
  assert.ok(
    (before.pending ?? 0) > receiver.open(),
    `a backlog beyond the attempts under way: ${JSON.stringify(rows)}`,
  );

  await database.kill();
  const killedAt = Date.now();
  const held = receiver.open();
  // The held attempts are answered now, while no instance can record them.
  openGate();
  for (const server of servers) {
    const ready = await request(`${server.url}/readyz`);
    assert.equal(ready.status, 503, ready.text);
    const refused = await request(`${server.url}/v1/categories`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'while down' }),
    });
    assert.equal(refused.status, 503, refused.text);
    assert.equal((refused.body as { code: string }).code, 'service_unavailable');
  }
  await eventually('the held attempts are answered', () => receiver.open() === 0, 15_000);
  await sleep(Math.max(0, OUTAGE_MS - (Date.now() - killedAt)));
  await database.start();
  const backAt = Date.now();

  // The instances answer again: ready, and a create through each is acknowledged (and told, below).
  for (const server of servers) {
    await eventually(
      `${server.url} is ready again`,
      async () => (await request(`${server.url}/readyz`)).status === 200,
      15_000,
    );
    await createOnce(server, `after ${server.url}`, Date.now() + 15_000);
  }
  const recoveredIn = Date.now() - backAt;
  assert.equal(created.size, BACKLOG + servers.length);

  // Every acknowledged create is told, signed, once the leases of the attempts whose records were lost run out.
  const verifier = new Webhook(secret);
  const told = new Map<number, string>();
  let read = 0;
  await eventually(
    `all ${created.size} events arrived`,
    () => {
      for (; read < receiver.received.length; read += 1) {
        const received = receiver.received[read] as Received;
        const event = verifier.verify(received.body, {
          'webhook-id': String(received.headers['webhook-id']),
          'webhook-timestamp': String(received.headers['webhook-timestamp']),
          'webhook-signature': String(received.headers['webhook-signature']),
        }) as { id: string; data: { id: number } };
        assert.ok(created.has(event.data.id), `category ${event.data.id} was acknowledged`);
        assert.equal(told.get(event.data.id) ?? event.id, event.id, `category ${event.data.id} is one event`);
        told.set(event.data.id, event.id);
      }
      return told.size === created.size;
    },
    60_000,
  );
  const deliveredIn = Date.now() - backAt;

  // And the delivery log says so: every delivery delivered, none left pending or failed.
  await eventually(
    'every delivery recorded as delivered',
    async () => {
      const listed = await request(`${second.url}/admin/v1/webhooks/${endpointId}/deliveries?limit=500`, {
        headers: admin,
      });
      assert.equal(listed.status, 200, listed.text);
      const deliveries = listed.body as { eventId: string; state: string }[];
      assert.equal(deliveries.length, created.size);
      assert.ok(!deliveries.some((delivery) => delivery.state === 'failed'), 'no delivery failed');
      return deliveries.every((delivery) => delivery.state === 'delivered');
    },
    30_000,
  );

  // The lost records cost attempts sent again, each after the one before it was answered: never two at once.
  assert.deepEqual(
    receiver.overlaps.map((received) => received.headers['webhook-id']),
    [],
    'a webhook-id was in flight twice at once',
  );
  // Each instance said it could not claim while PostgreSQL was down, and that it claims again: once each.
  for (const server of servers) {
    const said = server.output.filter((line) => /claim webhook deliveries|claimed again/.test(line));
    assert.ok(said.length >= 2, said.join('\n'));
    assert.match(said.at(-1) ?? '', /webhook deliveries are claimed again/);
    assert.ok(!server.output.some((line) => line.includes('"stack"')), 'no stack trace for an outage');
  }
  t.diagnostic(
    `before the crash: ${JSON.stringify(before)}, ${held} attempts open at the receiver; ready again and creating ` +
      `${recoveredIn} ms after the restart, every event told ${deliveredIn} ms after it; ` +
      `${receiver.received.length - told.size} sent again`,
  );
});
