import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request, startTestServer, type TestServer } from '../support/server.js';

/** The pages a person opens in a browser: the console, the references, the key page and the guides. */
const PAGES = [
  '/console',
  '/console/keys',
  '/docs',
  '/docs/admin',
  '/docs/key',
  '/docs/guides',
  '/docs/guides/api',
];

describe('Strict-Transport-Security on the pages', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('behind a TLS front each page tells the browser to keep to HTTPS; over plain HTTP none does', async () => {
    for (const page of PAGES) {
      const secure = await request(`${server.url}${page}`, { headers: { 'x-forwarded-proto': 'https' } });
      assert.equal(secure.status, 200, page);
      assert.equal(secure.headers.get('strict-transport-security'), 'max-age=31536000', page);
      const plain = await request(`${server.url}${page}`);
      assert.equal(plain.headers.get('strict-transport-security'), null, `${page} over plain HTTP`);
    }
  });
});
