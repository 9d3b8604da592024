import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { FakeClock } from '../../src/clock/index.js';
import type { AdminLoggedRequest } from '../../src/contract/index.js';
import { assertError } from '../support/assertions.js';
import { BACKENDS } from '../support/backends.js';
import { type JsonResponse, startTestServer, type TestServer } from '../support/server.js';

const START = '2026-12-01T10:00:00.000Z';
const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });

/** Sends raw bytes and reads the whole answer: a request Node's parser refuses, as a client sent it. */
function sendRaw(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

/** Whether a CSV cell would be run by a spreadsheet as a formula. */
const formulaLike = (cell: string) => /^[=+\-@\t\r]/.test(cell) && !/^-?\d+(\.\d+)?$/.test(cell);

for (const backend of BACKENDS) {
  describe(`every request id the service hands out is findable, and reads the same everywhere (${backend.name})`, () => {
    let server: TestServer;
    let clock: FakeClock;
    let admin: { id: string; token: string };
    const found = async (requestId: string): Promise<AdminLoggedRequest[]> => {
      const answer = await server.admin(admin.token, `/requests?requestId=${encodeURIComponent(requestId)}`);
      assert.equal(answer.status, 200, answer.text);
      return answer.body as AdminLoggedRequest[];
    };
    const idOf = (answer: JsonResponse) => answer.headers.get('x-request-id') as string;

    before(async () => {
      clock = new FakeClock(START);
      server = await startTestServer({}, { backend, clock });
      admin = await server.createAdminToken('support desk', 'admin');
    });
    after(() => server.close());

    test('paths outside /v1 have their rows: /, /categories, /docs/, a page, the health check', async () => {
      for (const [path, status] of [
        ['/', 404],
        ['/categories', 404],
        ['/docs/nowhere', 404],
        ['/healthz', 200],
        ['/openapi.json', 200],
      ] as const) {
        clock.advance(1_000);
        const answer = await server.call(path, { headers: { accept: 'application/json' } });
        assert.equal(answer.status, status, `${path}: ${answer.text}`);
        const rows = await found(idOf(answer));
        assert.equal(rows.length, 1, `${path} has its row`);
        assert.equal(rows[0]?.status, status);
        assert.equal(rows[0]?.path, path);
        assert.equal(rows[0]?.keyId, null);
        if (status === 404) assert.equal((answer.body as { requestId: string }).requestId, idOf(answer));
      }
    });

    test('a request that is not valid HTTP (a key pasted with its line break) has its row, and is told what to do', async () => {
      clock.advance(1_000);
      const raw = await sendRaw(
        server.url,
        `GET /v1/categories HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.key}\nxyz\r\n\r\n`,
      );
      assert.match(raw, /^HTTP\/1\.1 400 /);
      const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as {
        requestId: string;
        message: string;
      };
      assert.match(body.message, /line break/);
      const [row] = await found(body.requestId);
      assert.equal(row?.status, 400);
      assert.equal(row?.errorCode, 'malformed_request');
      assert.equal(row?.method, 'GET');
      assert.equal(row?.path, '/v1/categories');
      assert.ok(!JSON.stringify(row).includes(server.key.slice(8, 20)), 'no header of the packet is kept');
    });

    test("a client's id in the service's shape is replaced: a stranger cannot file a request under a customer's id", async () => {
      clock.advance(1_000);
      const customer = await server.call('/v1/categories', { headers: bearer(server.key) });
      const quoted = idOf(customer);
      assert.match(quoted, /^[0-9a-f]{8}-[0-9a-z]+$/);
      const stranger = await server.call('/v1/categories', {
        headers: { authorization: 'Bearer ps_live_guess', 'x-request-id': quoted },
      });
      assert.notEqual(idOf(stranger), quoted);
      const rows = await found(quoted);
      assert.deepEqual(
        rows.map((row) => row.status),
        [200],
        'only the customer’s',
      );
      // A client's own ids of other shapes are echoed, and every match is listed.
      for (const _ of [1, 2]) {
        const echoed = await server.call('/v1/categories', {
          headers: { ...bearer(server.key), 'x-request-id': 'proxy-7f3a' },
        });
        assert.equal(idOf(echoed), 'proxy-7f3a');
      }
      assert.equal((await found('proxy-7f3a')).length, 2);
    });

    test('no export cell is a formula: a user agent, a request id, a token’s name', async () => {
      clock.advance(1_000);
      const sly = await server.createAdminToken('=HYPERLINK("http://203.0.113.9/x","open")', 'admin');
      const made = await server.admin(sly.token, '/keys', {
        method: 'POST',
        json: { plan: 'free', name: "-2+3+cmd|' /C calc'!A0" },
      });
      assert.equal(made.status, 201, made.text);
      server.issuedKeys.push((made.body as { key: string }).key);
      const formula = await server.call('/v1/categories', {
        headers: { 'user-agent': '@SUM(1+1)*cmd|x', 'x-request-id': '=1+2' },
      });
      assert.notEqual(idOf(formula), '=1+2', 'an id that starts like a formula is not echoed');
      for (const refused of ['+1', '-1', '@a']) {
        const answer = await server.call('/v1/categories', { headers: { 'x-request-id': refused } });
        assert.notEqual(idOf(answer), refused);
      }

      const requests = await server.admin(admin.token, '/requests?format=csv&limit=200');
      const audit = await server.admin(admin.token, '/audit?format=csv');
      for (const [name, csv] of [
        ['requests', requests.text],
        ['audit', audit.text],
      ] as const) {
        const records = parse(csv, { columns: true }) as Record<string, string>[];
        assert.ok(records.length > 0, name);
        for (const record of records) {
          for (const [column, cell] of Object.entries(record)) {
            assert.ok(!formulaLike(cell), `${name}.${column}: ${cell}`);
          }
        }
      }
      const agent = (parse(requests.text, { columns: true }) as Record<string, string>[]).find(
        (record) => record.requestId === idOf(formula),
      );
      assert.equal(agent?.userAgent, "'@SUM(1+1)*cmd|x", 'kept, led by a quote');
      const actors = (parse(audit.text, { columns: true }) as Record<string, string>[]).map(
        (record) => record.actorName,
      );
      assert.ok(actors.includes(`'=HYPERLINK("http://203.0.113.9/x","open")`), actors.join());
    });

    test('a cursor past the year 9999 is 400, not 500', async () => {
      const cursor = Buffer.from(`${8.64e15}.abc`).toString('base64url');
      assertError(
        await server.call(`/v1/key/requests?cursor=${cursor}`, { headers: bearer(server.key) }),
        400,
        'validation_failed',
      );
      assertError(await server.admin(admin.token, `/requests?cursor=${cursor}`), 400, 'validation_failed');
      assert.ok(!server.logs.some((line) => line.includes('unhandled error')));
    });
  });
}

describe('TRUST_PROXY believes only addresses in X-Forwarded-For', () => {
  test("a client's text in X-Forwarded-For never becomes the logged address", async () => {
    const server = await startTestServer({ TRUST_PROXY: 'true' });
    try {
      const admin = await server.createAdminToken('support desk', 'admin');
      const cases: [string, string][] = [
        ['203.0.113.9', '203.0.113.9'],
        ['=HYPERLINK("x"), 203.0.113.10', '203.0.113.10'],
        [`${server.key}, 203.0.113.11:4711`, '203.0.113.11'],
        ['[2001:db8::7]:443', '2001:db8::7'],
        [server.key, '127.0.0.1'],
      ];
      for (const [forwarded, client] of cases) {
        const answer = await server.call('/v1/categories', {
          headers: { ...bearer(server.key), 'x-forwarded-for': forwarded },
        });
        const rows = (
          await server.admin(admin.token, `/requests?requestId=${answer.headers.get('x-request-id')}`)
        ).body as AdminLoggedRequest[];
        assert.equal(rows[0]?.client, client, forwarded);
      }
      const text = await server.storedText();
      assert.ok(!text.includes(server.key.slice(8)), 'the key sent as an address is nowhere');
    } finally {
      await server.close();
    }
  });
});
