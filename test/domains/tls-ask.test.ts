import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import type http from 'node:http';
import https from 'node:https';
import { networkInterfaces } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { BACKENDS } from '../support/backends.js';
import { handshake, startCaddy, type TestCaddy } from '../support/caddy.js';
import { FORWARDING_HEADERS } from '../support/security.js';
import { request, startTestServer, type TestServer, tempDir } from '../support/server.js';

const ASK = '/internal/tls/ask';
const DOMAINS = {
  primary: 'docs.verified.test',
  redirects: [
    { from: 'old.verified.test', to: 'docs.verified.test', status: 301 },
    { from: 'www.unverified.test', to: 'docs.verified.test', status: 301 },
  ],
};

/** Moves domains to `verified` in storage, as a check that found their DNS right does, and serves them so. */
async function markVerified(server: TestServer, ...domains: string[]): Promise<void> {
  const now = new Date().toISOString();
  for (const domain of domains) {
    await server.deps.storage.domains.recordCheck(domain, {
      state: 'verified',
      reason: 'DNS is right',
      fix: null,
      stateSince: now,
      checkedAt: now,
      // Not due again during the test: no re-check moves it back.
      nextCheckAt: '2099-01-01T00:00:00.000Z',
      lastCheck: 'passed',
      certificate: null,
    });
  }
  await server.deps.domains.registry.refresh();
}

const ask = (server: TestServer, domain: string, headers: Record<string, string> = {}) =>
  request(`${server.url}${ASK}?domain=${encodeURIComponent(domain)}`, { headers });

for (const backend of BACKENDS) {
  describe(`TLS ask check (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({}, { configFile: { domains: DOMAINS }, backend });
      await markVerified(server, 'docs.verified.test', 'old.verified.test', 'gone.verified.test');
    });
    after(() => server.close());

    test('200 only for a domain that is verified (or active)', async () => {
      for (const domain of ['docs.verified.test', 'OLD.verified.test.']) {
        const answer = await ask(server, domain);
        assert.equal(answer.status, 200, domain);
      }
      assert.deepEqual((await ask(server, 'docs.verified.test')).body, {
        domain: 'docs.verified.test',
        state: 'verified',
      });
      const unverified = await ask(server, 'www.unverified.test');
      assert.equal(unverified.status, 404);
      assert.match((unverified.body as { message: string }).message, /is pending, not verified/);
      const unconfigured = await ask(server, 'gone.verified.test');
      assert.equal(unconfigured.status, 404, 'verified once, but not configured');
      assert.deepEqual(
        {
          code: (unconfigured.body as { code: string }).code,
          status: (unconfigured.body as { status: number }).status,
        },
        { code: 'not_found', status: 404 },
      );
      assert.equal((await ask(server, 'random.example')).status, 404);
      assert.equal((await request(`${server.url}${ASK}`)).status, 400, 'the domain is required');
    });

    test('a forwarded request is refused, even from loopback', async () => {
      const answer = await ask(server, 'docs.verified.test', { 'x-forwarded-for': '203.0.113.9' });
      assert.equal(answer.status, 404);
      assert.equal((answer.body as { code: string }).code, 'not_found');
      for (const [name, value] of FORWARDING_HEADERS) {
        assert.equal((await ask(server, 'docs.verified.test', { [name]: value })).status, 404, name);
      }
    });

    test('a domain removed from the config is refused at once', async () => {
      writeFileSync(
        server.env.PETSTORE_CONFIG as string,
        JSON.stringify({ domains: { primary: 'docs.verified.test' } }),
      );
      const started = Date.now();
      while ((await ask(server, 'old.verified.test')).status !== 404) {
        assert.ok(Date.now() - started < 2_000, 'refused within 2 s');
        await sleep(50);
      }
      assert.equal((await ask(server, 'docs.verified.test')).status, 200);
    });
  });
}

describe('TLS ask check from another machine', () => {
  const external = Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry !== undefined && !entry.internal && entry.family === 'IPv4')?.address;
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ HOST: '0.0.0.0' }, { configFile: { domains: DOMAINS } });
    await markVerified(server, 'docs.verified.test');
  });
  after(() => server.close());

  test('a request that does not come from loopback is refused', {
    skip: external === undefined,
  }, async () => {
    const port = new URL(server.url).port;
    assert.equal((await ask(server, 'docs.verified.test')).status, 200, 'from loopback');
    const answer = await request(`http://${external}:${port}${ASK}?domain=docs.verified.test`);
    assert.equal(answer.status, 404);
    assert.equal((answer.body as { code: string }).code, 'not_found');
  });
});

describe('Caddy with on-demand TLS asks the service', () => {
  const { dir, remove } = tempDir('petstore-caddy-');
  let server: TestServer;
  let caddy: TestCaddy;
  let caddyPort = 0;

  before(async () => {
    server = await startTestServer({}, { configFile: { domains: DOMAINS } });
    await markVerified(server, 'docs.verified.test');
    const servicePort = new URL(server.url).port;
    caddy = await startCaddy({
      dir,
      upstream: `127.0.0.1:${servicePort}`,
    });
    caddyPort = caddy.port;
  });
  after(async () => {
    await caddy?.stop();
    await server?.close();
    remove();
  });

  test('a configured, verified domain gets a certificate for its name', async () => {
    const names = await handshake(caddyPort, 'docs.verified.test');
    assert.match(names, /DNS:docs\.verified\.test/, caddy.output.join(''));
  });

  test('an unknown domain gets no certificate: the handshake fails', async () => {
    await assert.rejects(handshake(caddyPort, 'unknown.test'));
    await assert.rejects(handshake(caddyPort, 'www.unverified.test'), 'configured but not verified');
    // The ask check is what decided: once verified, the same name gets its certificate.
    await markVerified(server, 'www.unverified.test');
    assert.match(await handshake(caddyPort, 'www.unverified.test'), /DNS:www\.unverified\.test/);
  });

  test('the reference is served through Caddy at the verified domain', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const sent = https.get(
        {
          host: '127.0.0.1',
          port: caddyPort,
          path: '/openapi.json',
          servername: 'docs.verified.test',
          headers: { host: 'docs.verified.test' },
          rejectUnauthorized: false,
          agent: false,
        },
        (response: http.IncomingMessage) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      sent.on('error', reject);
    });
    assert.equal(status, 200);
  });
});
