import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer, type TestServer } from '../support/server.js';

interface AccessLine {
  log: string;
  reqId: string;
  method: string;
  route: string | null;
  status: number;
  durationMs: number;
  bytes: number;
  keyId: string | null;
  client: string;
  msg: string;
}

const accessLines = (server: TestServer) =>
  server.logs
    .map((line) => JSON.parse(line) as Partial<AccessLine>)
    .filter((line): line is AccessLine => line.log === 'access');

describe('access log', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({}, { configFile: { anonymous: { perMinute: 1000, perDay: 10_000 } } });
  });
  after(() => server.close());

  test('exactly one line per request, with its fields, for 200, 304, 401, 404, 413 and 429', async () => {
    const { id, key } = await server.createKey({ plan: 'enterprise', limits: { perMinute: 1, perDay: 100 } });
    const as = { authorization: `Bearer ${key}` };
    const other = await server.createKey({ plan: 'pro' });
    const asOther = { authorization: `Bearer ${other.key}` };
    const list = await server.call('/v1/categories', { headers: as });
    const etag = list.headers.get('etag') as string;
    const sent = [
      { response: list, route: '/v1/categories', keyId: id, status: 200 },
      {
        response: await server.call('/v1/categories', { headers: { ...as, 'if-none-match': etag } }),
        route: '/v1/categories',
        keyId: id,
        status: 429,
      },
      {
        response: await server.call('/v1/pets/12?secret=hunter2', { headers: { authorization: '' } }),
        route: '/v1/pets/{petId}',
        keyId: null,
        status: 401,
      },
      {
        response: await server.call('/v1/categories', { headers: { ...asOther, 'if-none-match': etag } }),
        route: '/v1/categories',
        keyId: other.id,
        status: 304,
      },
      {
        response: await server.call('/v1/nowhere/at/all', { headers: asOther }),
        route: null,
        keyId: other.id,
        status: 404,
      },
      {
        response: await server.call('/v1/categories', {
          method: 'POST',
          headers: { ...asOther, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'x'.repeat(20_000) }),
        }),
        route: '/v1/categories',
        keyId: other.id,
        status: 413,
      },
    ];
    await sleep(50);
    const lines = accessLines(server);
    for (const { response, route, keyId, status } of sent) {
      assert.equal(response.status, status);
      const requestId = response.headers.get('x-request-id');
      const mine = lines.filter((line) => line.reqId === requestId);
      assert.equal(mine.length, 1, `one line for the ${status}`);
      const line = mine[0] as AccessLine;
      assert.equal(line.msg, 'request');
      assert.equal(line.method, response === sent[5]?.response ? 'POST' : 'GET');
      assert.equal(line.route, route, `the route template of the ${status}, never the raw path`);
      assert.equal(line.status, status);
      assert.ok(line.durationMs >= 0 && line.durationMs < 5_000);
      assert.equal(line.bytes, Buffer.byteLength(response.text));
      assert.equal(line.keyId, keyId);
      assert.equal(line.client, '127.0.0.1');
    }
    const all = server.logs.join('\n');
    assert.doesNotMatch(all, /hunter2/, 'no query value');
    for (const secret of server.issuedKeys) assert.ok(!all.includes(secret), 'no key');
  });

  test('a line is shaped as the logger writes its own: level, time and pid first', async () => {
    const response = await server.call('/v1/categories');
    await sleep(50);
    const requestId = response.headers.get('x-request-id');
    const raw = server.logs.find((line) => line.includes(`"reqId":"${requestId}"`)) as string;
    const line = JSON.parse(raw) as Record<string, unknown>;
    assert.deepEqual(Object.keys(line).slice(0, 4), ['level', 'time', 'pid', 'log']);
    assert.equal(line.level, 30, 'info');
    assert.equal(line.pid, process.pid, 'the test server runs in this process');
    assert.ok(Math.abs(Date.now() - (line.time as number)) < 5_000, 'epoch milliseconds');
    assert.match(raw, /"durationMs":\d+\.\d{3},/, 'to the microsecond');
  });

  for (const [setting, env] of [
    ['a LOG_LEVEL above info', { LOG_LEVEL: 'warn' }],
    ['ACCESS_LOG=off', { ACCESS_LOG: 'off' }],
  ] as const) {
    test(`${setting} writes none`, async (t) => {
      const quiet = await startTestServer(env);
      t.after(() => quiet.close());
      assert.equal((await quiet.call('/v1/categories')).status, 200);
      await sleep(50);
      assert.deepEqual(accessLines(quiet), []);
    });
  }
});
