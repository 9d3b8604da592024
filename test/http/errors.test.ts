import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { assertError, eventually } from '../support/assertions.js';
import { BACKENDS } from '../support/backends.js';
import { RawConnection } from '../support/raw-http.js';
import { request, startTestServer, type TestServer } from '../support/server.js';

/** Sends raw bytes and returns everything the server answers before it closes the connection. */
function rawRequest(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.end(bytes));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

const CATEGORIES = '/v1/categories';

for (const backend of BACKENDS) {
  describe(`error answers (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({}, { backend });
    });
    after(() => server.close());

    /** The rows of every table a create writes. */
    const rowCounts = async () =>
      Promise.all(
        ['categories', 'pets', 'orders'].map(async (table) =>
          Number((await server.query<{ n: number | string }>(`SELECT count(*) AS n FROM ${table}`))[0]?.n),
        ),
      );
    /** Runs `send`, then checks it stored no row: each test proves that its refusals created nothing. */
    const storesNothing = async (send: () => Promise<void>) => {
      const before = await rowCounts();
      await send();
      assert.deepEqual(await rowCounts(), before, 'a refused request stored a row');
    };

    const invalidBodies: [string, unknown, RegExp][] = [
      ['missing name', { description: 'no name' }, /name is required/],
      ['empty name', { name: '' }, /name must be at least 1 character long/],
      ['whitespace name', { name: ' \t\n ' }, /name must contain a character other than whitespace/],
      ['long name', { name: 'n'.repeat(101) }, /name must be at most 100 characters/],
      ['numeric name', { name: 42 }, /name must be a string/],
      ['null name', { name: null }, /name must be a string/],
      [
        'long description',
        { name: 'Dog', description: 'd'.repeat(1001) },
        /description must be at most 1000/,
      ],
      ['numeric description', { name: 'Dog', description: 1 }, /description must be a string/],
      ['client-chosen id', { id: 7, name: 'Dog' }, /unknown field 'id'/],
      ['unknown field', { name: 'Dog', colour: 'brown' }, /unknown field 'colour'/],
      ['array body', [{ name: 'Dog' }], /Request body must be a JSON object/],
      ['string body', 'Dog', /Request body must be a JSON object/],
      ['null body', null, /Request body must be a JSON object/],
    ];
    for (const [label, body, message] of invalidBodies) {
      test(`400 validation_failed: ${label}`, () =>
        storesNothing(async () => {
          const response = await server.post(CATEGORIES, body);
          assertError(response, 400, 'validation_failed');
          assert.match((response.body as { message: string }).message, message);
        }));
    }

    test('400 malformed_json for a body that is not JSON, saying what and where', () =>
      storesNothing(async () => {
        const bodies: [string, string][] = [
          ['{"name":', 'a value was expected at line 1, column 9'],
          ['{name: "Dog"}', 'a character that starts no JSON value at line 1, column 2'],
          ["{'name':'Dog'}", 'at line 1, column 2'],
          ['{"name":"Dog"}}', 'the body should end here at line 1, column 15'],
          ['{\n  "name": "Dog",\n}', 'a property name in double quotes was expected at line 3, column 1'],
          ['{"name": "Dog" "description": "x"}', 'a comma was expected at line 1, column 16'],
          ['\u0000', 'at line 1, column 1'],
        ];
        for (const [text, where] of bodies) {
          const response = await server.call(CATEGORIES, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: text,
          });
          assertError(response, 400, 'malformed_json');
          const { message } = response.body as { message: string };
          assert.ok(message.startsWith('Request body is not valid JSON: '), message);
          assert.ok(message.endsWith(where), `${JSON.stringify(text)}: ${message}`);
        }
      }));

    test('400 for prototype poisoning, and nothing is polluted', () =>
      storesNothing(async () => {
        for (const text of [
          '{"name":"Dog","__proto__":{"polluted":true}}',
          '{"name":"Dog","constructor":{"prototype":{"polluted":true}}}',
        ]) {
          const response = await server.call(CATEGORIES, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: text,
          });
          assertError(response, 400, 'validation_failed');
        }
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
      }));

    test('400 malformed_json for bytes that are not UTF-8, on every POST, and nothing is stored', () =>
      storesNothing(async () => {
        const notUtf8 = [
          Buffer.from([0xff, 0xfe]), // bytes no UTF-8 text holds
          Buffer.from([0xc0, 0x80]), // an overlong NUL
          Buffer.from([0xed, 0xa0, 0x80]), // a surrogate, encoded
          Buffer.from([0xe2, 0x82]), // a sequence cut short
          Buffer.from([0xe9]), // Latin-1's é
        ];
        for (const path of [CATEGORIES, '/v1/pets', '/v1/store/orders']) {
          for (const bytes of notUtf8) {
            const body = Buffer.concat([Buffer.from('{"name":"'), bytes, Buffer.from('"}')]);
            const response = await server.call(path, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body,
            });
            assertError(response, 400, 'malformed_json');
            assert.equal((response.body as { message: string }).message, 'Request body is not valid UTF-8');
          }
        }
        // The check is on the bytes, not on what they spell: the same text in UTF-8 passes it.
        const utf8 = await server.call('/v1/pets', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: Buffer.from('{"name":"Café"}', 'utf8'),
        });
        assertError(utf8, 400, 'validation_failed');
        assert.match((utf8.body as { message: string }).message, /categoryId is required/);
      }));

    test('400 for an empty or absent body', () =>
      storesNothing(async () => {
        const empty = await server.call(CATEGORIES, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '',
        });
        assertError(empty, 400, 'validation_failed');
        const absent = await server.call(CATEGORIES, { method: 'POST' });
        assertError(absent, 400, 'validation_failed');
      }));

    test('415 for any media type but JSON, charset allowed', async () => {
      await storesNothing(async () => {
        for (const type of [
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/xml',
          'application/json; charset=latin1',
        ]) {
          const response = await server.call(CATEGORIES, {
            method: 'POST',
            headers: { 'content-type': type },
            body: '{"name":"Dog"}',
          });
          assertError(response, 415, 'unsupported_media_type');
        }
      });
      const withCharset = await server.call(CATEGORIES, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=UTF-8' },
        body: '{"name":"Charset"}',
      });
      assert.equal(withCharset.status, 201);
    });

    test('413 for a body over 16 KiB; 16 KiB itself is read', async () => {
      await storesNothing(async () => {
        const tooLarge = await server.post(CATEGORIES, { name: 'Dog', description: 'd'.repeat(16 * 1024) });
        assertError(tooLarge, 413, 'payload_too_large');
      });
      const padded = `{"name":"Exactly16KiB"${' '.repeat(16 * 1024 - 23)}}`;
      assert.equal(Buffer.byteLength(padded), 16 * 1024);
      const atLimit = await server.call(CATEGORIES, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: padded,
      });
      assert.equal(atLimit.status, 201);
    });

    test('a client gone halfway through its body is a 499 at info: never a 5xx in the log, the metrics or its usage', async () => {
      const { key } = await server.createKey({ plan: 'pro', name: 'leaves' });
      const stored = await rowCounts();
      const connection = await RawConnection.open(server.url);
      await connection.write(
        `POST ${CATEGORIES} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":',
      );
      connection.socket.destroy();
      await connection.closed;
      const access = await eventually('the access line of the abandoned request', () =>
        server.logs.find((line) => line.includes('"log":"access"') && line.includes('"status":499')),
      );
      const { reqId } = JSON.parse(access) as { reqId: string };
      const lines = server.logs.filter((line) => line.includes(`"reqId":"${reqId}"`));
      assert.deepEqual(
        lines.map((line) => (JSON.parse(line) as { level: number }).level),
        [30, 30],
        'one info line saying the client left, and the access line',
      );
      const metrics = (await server.call('/metrics')).text;
      assert.match(
        metrics,
        /petstore_http_requests_total\{operation="createCategory",method="POST",status="499"\} 1/,
      );
      assert.doesNotMatch(metrics, /status="5\d\d"/);
      const usage = (await server.call('/v1/key', { headers: { authorization: `Bearer ${key}` } })).body as {
        usage: { clientErrors: number; serverErrors: number }[];
      };
      const today = usage.usage.at(-1);
      assert.deepEqual([today?.clientErrors, today?.serverErrors], [1, 0]);
      assert.deepEqual(await rowCounts(), stored, 'nothing half-stored');
    });

    test('405 with Allow for other methods on a documented path; HEAD answers as GET', async () => {
      for (const method of ['PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
        // The method is refused first, whatever the body: none, an empty one declared JSON, one of another type.
        for (const headers of [
          {},
          { 'content-type': 'application/json' },
          { 'content-type': 'text/plain' },
        ]) {
          const response = await server.call(CATEGORIES, { method, headers, body: '' });
          assertError(response, 405, 'method_not_allowed');
          assert.equal(response.headers.get('allow'), 'GET, HEAD, POST');
        }
        const withBody = await server.call('/v1/pets', {
          method,
          headers: { 'content-type': 'application/json' },
          body: '{"name":',
        });
        assertError(withBody, 405, 'method_not_allowed');
      }
      const head = await server.call(CATEGORIES, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.text, '');
      assert.equal(head.headers.get('etag'), (await server.call(CATEGORIES)).headers.get('etag'));
    });

    test('404 not_found for unknown paths, with the Error body', async () => {
      for (const path of ['/', '/v1', '/v1/nothing', '/v1/categories/1', `/v1/${'x'.repeat(5000)}`]) {
        const response = await server.call(path);
        assertError(response, 404, 'not_found');
        assert.ok(
          (response.body as { message: string }).message.length < 300,
          'long paths are not echoed whole',
        );
      }
    });

    test('a 404 for / or for a path of the API without /v1 says where the API and its reference are', async () => {
      const message = async (path: string) => {
        const response = await server.call(path, { headers: { authorization: '' } });
        assertError(response, 404, 'not_found');
        return (response.body as { message: string }).message;
      };
      assert.equal(
        await message('/'),
        'No route GET /: the API is under /v1 (GET /v1/categories, with a key), its reference at /docs',
      );
      assert.equal(
        await message('/categories'),
        'No route GET /categories: the API is under /v1, at /v1/categories (its reference is at /docs)',
      );
      assert.equal(
        await message('/pets/7'),
        'No route GET /pets/7: the API is under /v1, at /v1/pets/7 (its reference is at /docs)',
      );
      assert.equal(await message('/nothing'), 'No route GET /nothing');
    });

    test('a path of the API with a trailing slash names the path without it; a browser at / goes to the reference', async () => {
      const paths: [string, string][] = [
        ['/v1/categories/', 'paths end without a slash, /v1/categories'],
        ['/v1/pets/7//', 'paths end without a slash, /v1/pets/7'],
      ];
      for (const [path, hint] of paths) {
        const response = await server.call(path);
        assertError(response, 404, 'not_found');
        assert.equal((response.body as { message: string }).message, `No route GET ${path}: ${hint}`);
      }
      const page = await request(`${server.url}/`, {
        headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
        redirect: 'manual',
      });
      assert.equal(page.status, 302);
      assert.equal(page.headers.get('location'), '/docs');
      assertError(
        await server.call('/', { headers: { authorization: '', accept: '*/*' } }),
        404,
        'not_found',
      );
    });

    test('a key sent without its scheme is told so, not that a key is required', async () => {
      const response = await server.call(CATEGORIES, { headers: { authorization: server.key } });
      assertError(response, 401, 'missing_api_key');
      const { message } = response.body as { message: string };
      assert.match(message, /lacks its scheme, Bearer/);
      assert.ok(!message.includes(server.key), 'the key is not echoed');
    });

    test('the Node HTTP parser refusing a request still gives the Error body', async () => {
      const answer = await rawRequest(
        server.url,
        'GET /v1/categories HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
      );
      const [head, body] = answer.split('\r\n\r\n');
      assert.match(head ?? '', /^HTTP\/1\.1 400 /);
      const parsed = JSON.parse(body ?? '') as { code: string; status: number; requestId: string };
      assert.equal(parsed.code, 'malformed_request');
      assert.equal(parsed.status, 400);
      assert.match(head ?? '', new RegExp(`X-Request-Id: ${parsed.requestId}`, 'i'));

      const huge = await rawRequest(
        server.url,
        `GET /v1/categories HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      );
      assert.match(huge, /^HTTP\/1\.1 431 /);
      assert.match(huge, /"code":"headers_too_large","message":"[^"]+","status":431/);
    });
  });
}
