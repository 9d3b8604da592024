import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Sqlite } from '../../src/storage/index.js';
import { BACKENDS } from '../support/backends.js';
import { startTestServer, type TestServer } from '../support/server.js';

const CATEGORIES = '/v1/categories';

for (const backend of BACKENDS) {
  describe(`categories over HTTP (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({}, { backend });
    });
    after(() => server.close());

    test('an empty store lists an empty array', async (t) => {
      // A store of its own: the suite's is empty only until its first create.
      const empty = await startTestServer({}, { backend });
      t.after(() => empty.close());
      const response = await empty.call(CATEGORIES);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.deepEqual(response.body, []);
    });

    test('create answers 201 with the assigned id, and the list holds it in ascending order', async () => {
      const dog = await server.post(CATEGORIES, { name: 'Dog', description: 'Domestic dogs' });
      assert.equal(dog.status, 201);
      const created = dog.body as { id: number; name: string; description: string };
      assert.ok(Number.isSafeInteger(created.id) && created.id > 0);
      assert.deepEqual(created, { id: created.id, name: 'Dog', description: 'Domestic dogs' });

      const cat = await server.post(CATEGORIES, { name: 'Cat' });
      assert.equal(cat.status, 201);
      const catBody = cat.body as { id: number };
      assert.ok(catBody.id > created.id, 'ids increase');
      assert.deepEqual(cat.body, { id: catBody.id, name: 'Cat' }, 'no description key when none was sent');

      const list = await server.call(CATEGORIES);
      const rows = list.body as { id: number }[];
      assert.deepEqual(rows.slice(-2), [created, cat.body]);
      assert.deepEqual(
        rows.map((row) => row.id),
        rows.map((row) => row.id).toSorted((a, b) => a - b),
      );
    });

    test('names are stored as given, limits are inclusive, and names need not be unique', async () => {
      for (const name of [' padded ', 'x', 'n'.repeat(100), '🐕 Hund', 'Dog']) {
        const response = await server.post(CATEGORIES, { name, description: 'd'.repeat(1000) });
        assert.equal(response.status, 201, name);
        assert.equal((response.body as { name: string }).name, name);
      }
    });

    test('ETag and If-None-Match give 304 until a create changes the list', async () => {
      const first = await server.call(CATEGORIES);
      const etag = first.headers.get('etag');
      assert.match(etag ?? '', /^"[A-Za-z0-9_-]+"$/, 'a strong ETag');

      // A private cache may keep the list but must revalidate it each time: no-store would forbid the 304.
      assert.equal(first.headers.get('cache-control'), 'private, no-cache');
      const again = await server.call(CATEGORIES, { headers: { 'if-none-match': etag as string } });
      assert.equal(again.status, 304);
      assert.equal(again.text, '');
      assert.equal(again.headers.get('etag'), etag);
      assert.equal(again.headers.get('cache-control'), 'private, no-cache');

      const weak = await server.call(CATEGORIES, { headers: { 'if-none-match': `"other", W/${etag}` } });
      assert.equal(weak.status, 304, 'If-None-Match uses weak comparison over a list of tags');

      await server.post(CATEGORIES, { name: 'Rabbit' });
      const changed = await server.call(CATEGORIES, { headers: { 'if-none-match': etag as string } });
      assert.equal(changed.status, 200);
      assert.notEqual(changed.headers.get('etag'), etag);
      assert.equal(
        (changed.body as { name: string }[]).at(-1)?.name,
        'Rabbit',
        'a 201 is visible to the next read',
      );
    });

    test('the list written straight to the socket carries the headers of HEAD, answered by Fastify', async () => {
      // GET skips Fastify's send path (sendPrepared); HEAD takes it, with every onSend hook of the route.
      await server.post(CATEGORIES, { name: 'Hamster' });
      const get = await server.call(CATEGORIES);
      const head = await server.call(CATEGORIES, { method: 'HEAD' });
      assert.equal(get.status, 200);
      assert.equal(head.status, 200);
      assert.equal(head.text, '');
      assert.equal(get.headers.get('content-length'), String(Buffer.byteLength(get.text)));
      assert.equal((get.body as { name: string }[]).at(-1)?.name, 'Hamster');
      // Node writes Connection and Keep-Alive itself, and fetch asks to close after a HEAD.
      const ours = (headers: Headers) =>
        [...headers].filter(([name]) => name !== 'connection' && name !== 'keep-alive');
      const names = (headers: Headers) => ours(headers).map(([name]) => name);
      assert.deepEqual(names(get.headers), names(head.headers));
      // Values that differ from one request to the next (the minute's counter and its reset among them).
      const varying = new Set([
        'date',
        'x-request-id',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'ratelimit',
      ]);
      const fixed = (headers: Headers) => ours(headers).filter(([name]) => !varying.has(name));
      assert.deepEqual(fixed(get.headers), fixed(head.headers));
    });

    test('API answers carry the security headers and a request id; only the list may be kept', async () => {
      const response = await server.call(CATEGORIES, { headers: { 'x-request-id': 'client-chosen-42' } });
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      for (const other of [
        await server.post(CATEGORIES, { name: 'Stored nowhere else' }),
        await server.call('/v1/pets'),
        await server.call('/v1/store/orders'),
        await server.call(CATEGORIES, { headers: { authorization: '' } }),
        await server.call('/v1/nowhere'),
      ]) {
        assert.equal(other.headers.get('cache-control'), 'no-store', `${other.status} ${other.text}`);
      }
      assert.equal(response.headers.get('x-request-id'), 'client-chosen-42');
      assert.equal(response.headers.get('x-powered-by'), null);

      const insane = await server.call(CATEGORIES, {
        headers: { 'x-request-id': 'has spaces and "quotes"' },
      });
      assert.match(
        insane.headers.get('x-request-id') ?? '',
        /^[0-9a-f]{8}-[0-9a-z]+$/,
        'an unsafe id is replaced',
      );
    });

    test('nothing of the API answers without the /v1 prefix', async () => {
      for (const path of ['/categories', '/v2/categories', '/V1/categories', '/v1/categories/']) {
        const response = await server.call(path);
        assert.equal(response.status, 404, path);
        assert.equal((response.body as { code: string }).code, 'not_found');
      }
    });

    test('rows are in the storage', async () => {
      for (const name of ['Stored Dog', 'Stored Rabbit']) await server.post(CATEGORIES, { name });
      const names = (await server.query<{ name: string }>('SELECT name FROM categories ORDER BY id')).map(
        (r) => r.name,
      );
      assert.ok(names.includes('Stored Dog') && names.includes('Stored Rabbit'));
      if (backend.storage === 'sqlite') {
        const db = new Sqlite(server.file, { readonly: true });
        assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
        db.close();
      }
    });
  });
}
