import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../support/assertions.js';
import { spawnServer } from '../support/process.js';
import { RawConnection } from '../support/raw-http.js';
import { startTestServer, type TestServer, tempDir } from '../support/server.js';

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
    // One request a day: the second is refused whatever minute it falls in (a minute that ends between
    // the two would let it through).
    const { id, key } = await server.createKey({ plan: 'enterprise', limits: { perMinute: 1, perDay: 1 } });
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
    // Each line is written as its answer is sent; wait for all of them rather than for a fixed time.
    const lines = await eventually('a line for every request', () => {
      const all = accessLines(server);
      const ids = new Set(all.map((line) => line.reqId));
      return sent.every(({ response }) => ids.has(response.headers.get('x-request-id') ?? '')) && all;
    });
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
    const requestId = response.headers.get('x-request-id');
    const raw = await eventually('the line of the request', () =>
      server.logs.find((line) => line.includes(`"reqId":"${requestId}"`)),
    );
    const line = JSON.parse(raw) as Record<string, unknown>;
    assert.deepEqual(Object.keys(line).slice(0, 4), ['level', 'time', 'pid', 'log']);
    assert.equal(line.level, 30, 'info');
    assert.equal(line.pid, process.pid, 'the test server runs in this process');
    assert.ok(Math.abs(Date.now() - (line.time as number)) < 5_000, 'epoch milliseconds');
    assert.match(raw, /"durationMs":\d+\.\d{3},/, 'to the microsecond');
  });

  test('a client that leaves halfway through its body still gets one valid line', async () => {
    // Node forgets the address of a closed socket: the answer to the cut-off body comes after it.
    const before = accessLines(server).length;
    const connection = await RawConnection.open(server.url);
    await connection.write(
      `POST /v1/categories HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":',
    );
    connection.socket.destroy();
    await connection.closed;
    const lines = await eventually('the line of the request cut off', () => {
      const after = accessLines(server).slice(before);
      return after.length > 0 && after;
    });
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.status, 499, 'the client closed the request');
    assert.equal(lines[0]?.method, 'POST');
    assert.equal(lines[0]?.route, '/v1/categories');
    assert.ok(lines[0]?.client === null || lines[0]?.client === '127.0.0.1', `client ${lines[0]?.client}`);
  });

  for (const [setting, env] of [
    ['a LOG_LEVEL above info', { LOG_LEVEL: 'warn' }],
    ['ACCESS_LOG=off', { ACCESS_LOG: 'off' }],
  ] as const) {
    test(`${setting} writes none`, async (t) => {
      const quiet = await startTestServer(env);
      t.after(() => quiet.close());
      assert.equal((await quiet.call('/v1/categories')).status, 200);
      // No wait needed, nor a fixed sleep: the line is written in `onSend` (src/http/answered.ts), before the
      // answer leaves, into a capture that stores it synchronously; the answer is the proof it had its chance.
      // That the same request does write its line when logging is on is the tests' above.
      assert.deepEqual(accessLines(quiet), []);
    });
  }

  test('the service as users run it writes its lines to stdout, for every kind of answer', async (t) => {
    // The test server above captures its lines in this process; `petstore serve` encodes them into the
    // batches of its stdout (src/log), and they must come out whole, among its other lines.
    const { dir, remove } = tempDir('petstore-access-log-');
    t.after(remove);
    const served = await spawnServer(
      { DATABASE_URL: `sqlite:${path.join(dir, 'petstore.db')}` },
      { withKey: true },
    );
    t.after(() => served.child.kill('SIGKILL'));
    const authorization = served.authorization.replace(/^Authorization: |\r\n$/g, '');
    const calls = [
      { method: 'GET', path: '/v1/categories', route: '/v1/categories', status: 200 },
      { method: 'HEAD', path: '/v1/categories', route: '/v1/categories', status: 200 },
      { method: 'GET', path: '/v1/pets/999999', route: '/v1/pets/{petId}', status: 404 },
      { method: 'GET', path: '/v1/categories', route: '/v1/categories', status: 401, wrongKey: true },
    ];
    const sent = [];
    for (const call of calls) {
      const response = await fetch(`${served.url}${call.path}`, {
        method: call.method,
        headers: { authorization: call.wrongKey ? 'Bearer wrong' : authorization },
      });
      sent.push({
        ...call,
        id: response.headers.get('x-request-id'),
        bytes: (await response.arrayBuffer()).byteLength,
      });
    }
    served.child.kill('SIGTERM');
    assert.equal((await served.exited).code, 0);
    const lines = served.output.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
    for (const call of sent) {
      const mine = lines.filter((line) => line.log === 'access' && line.reqId === call.id);
      assert.equal(mine.length, 1, `one line for ${call.method} ${call.path}`);
      assert.deepEqual(
        { ...mine[0], time: 0, durationMs: 0 },
        {
          level: 30,
          time: 0,
          pid: served.child.pid,
          log: 'access',
          reqId: call.id,
          method: call.method,
          route: call.route,
          status: call.status,
          durationMs: 0,
          bytes: call.bytes,
          keyId: call.wrongKey ? null : mine[0].keyId,
          client: '127.0.0.1',
          msg: 'request',
        },
      );
      assert.equal(typeof mine[0].durationMs, 'number');
      if (!call.wrongKey) assert.match(mine[0].keyId, /^key_\w+$/);
    }
  });
});
