import assert from 'node:assert/strict';
import os from 'node:os';
import { after, before, describe, test } from 'node:test';
import { assertError } from '../support/assertions.js';
import { BACKENDS } from '../support/backends.js';
import { FORWARDING_HEADERS } from '../support/security.js';
import { request, startTestServer, type TestServer } from '../support/server.js';

for (const backend of BACKENDS) {
  describe(`health and readiness (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({}, { backend });
    });
    after(() => server.close());

    test('health and readiness answer without the prefix', async () => {
      assert.deepEqual((await server.call('/healthz')).body, { status: 'ok' });
      const ready = await server.call('/readyz');
      assert.equal(ready.status, 200);
      const checks = backend.limiter === 'redis' ? { postgres: 'ok', redis: 'ok' } : { sqlite: 'ok' };
      assert.deepEqual(ready.body, { status: 'ready', checks });
    });
  });
}

describe('/metrics is for this machine only', () => {
  // An address of this machine that is not loopback, to call the server as another host would.
  const external = Object.values(os.networkInterfaces())
    .flat()
    .find((entry) => entry !== undefined && !entry.internal && entry.family === 'IPv4')?.address;
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ HOST: '0.0.0.0' });
  });
  after(() => server.close());

  test('from loopback, without a key, it answers the counters', async () => {
    const metrics = await request(`${server.url}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(metrics.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    assert.match(metrics.text, /# TYPE petstore_ratelimit_fail_open_total counter/);
  });

  test('through a proxy, even one on this machine, the path does not exist', async () => {
    for (const [name, value] of FORWARDING_HEADERS) {
      const forwarded = await request(`${server.url}/metrics`, { headers: { [name]: value } });
      assertError(forwarded, 404, 'not_found');
    }
  });

  test('from another address the path does not exist', { skip: external === undefined }, async () => {
    const port = new URL(server.url).port;
    assertError(await request(`http://${external}:${port}/metrics`), 404, 'not_found');
  });
});
