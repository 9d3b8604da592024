import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DomainRecord } from '../../src/domains/index.js';
import { assertError } from '../support/assertions.js';
import { BACKENDS } from '../support/backends.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { freePort } from '../support/process.js';
import { getWithHost, type HostAnswer, startTestServer, type TestServer } from '../support/server.js';

const TARGET = 'edge.platform.test';
const OWN = 'api.petstore.example';

/** The paths an operator or a machine calls by any name: no domain may redirect them. */
const OPERATOR_PATHS = ['/healthz', '/readyz', '/metrics', '/internal/tls/ask?domain=x.example.test'];

for (const backend of BACKENDS) {
  describe(`custom domains cannot take over the service (${backend.name})`, () => {
    let dns: TestDnsServer;
    let server: TestServer;
    let token: string;
    const admin = (method: string, path: string, json?: unknown) =>
      server.admin(token, path, { method, ...(json === undefined ? {} : { json }) });
    const asHost = (host: string, path: string, headers: Record<string, string> = {}) =>
      getWithHost(server.url, host, path, headers);
    const redirected = (answer: HostAnswer) => answer.status >= 300 && answer.status < 400;

    before(async () => {
      dns = await startDnsServer(new Map([[TARGET, { A: ['127.0.0.1'] }]]));
      server = await startTestServer(
        {
          PETSTORE_PRODUCTION_URL: `https://${OWN}/v1`,
          DOMAINS_TARGET: TARGET,
          DNS_RESOLVER: dns.address,
          DOMAINS_REQUIRE_TXT: 'on',
          TLS_CHECK_ADDRESS: `127.0.0.1:${await freePort()}`,
        },
        { backend },
      );
      ({ token } = await server.createAdminToken('takeover'));
    });
    after(async () => {
      await server?.close();
      await dns?.close();
    });

    test('a redirect added but not verified redirects nothing, and its reference is 421 naming its state', async () => {
      const added = await admin('POST', '/domains', {
        name: 'api.example.com',
        redirectTo: 'evil.example.net',
      });
      assert.equal(added.status, 201, added.text);
      await server.deps.domains.registry.refresh();
      for (const path of ['/v1/categories', '/docs', ...OPERATOR_PATHS]) {
        const answer = await asHost('api.example.com', path, { authorization: `Bearer ${server.key}` });
        assert.ok(!redirected(answer), `${path}: ${answer.status} ${answer.headers.location ?? ''}`);
      }
      const docs = await asHost('api.example.com', '/openapi.json');
      assert.equal(docs.status, 421);
      assert.match(
        JSON.parse(docs.body).message,
        /at api\.example\.com yet: the domain is pending, not verified/,
      );
    });

    test('once verified it redirects the API and the reference, never the admin API, health, metrics or the TLS ask', async () => {
      dns.zone.set('api.example.com', { CNAME: TARGET });
      const { dns: records } = (await admin('GET', '/domains/api.example.com')).body as {
        dns: { name: string; type: string; value: string }[];
      };
      const txt = records.find((record) => record.type === 'TXT');
      dns.zone.set(txt?.name ?? '', { TXT: [txt?.value ?? ''] });
      const verified = await admin('POST', '/domains/api.example.com/verify');
      assert.equal((verified.body as { state: string }).state, 'verified', verified.text);
      await server.deps.domains.registry.refresh();

      for (const path of ['/v1/categories', '/openapi.json']) {
        const answer = await asHost('api.example.com', path);
        assert.equal(answer.status, 301, path);
        assert.equal(answer.headers.location, `https://evil.example.net${path}`);
      }
      for (const path of OPERATOR_PATHS) {
        const answer = await asHost('api.example.com', path);
        assert.ok(!redirected(answer), `${path}: ${answer.status}`);
      }
      const listed = await asHost('api.example.com', '/admin/v1/domains', {
        authorization: `Bearer ${token}`,
      });
      assert.equal(
        listed.status,
        200,
        'the admin API answers by that name, so the domain can be removed there',
      );
      const encoded = await asHost('api.example.com', '/%61dmin/v1/domains', {
        authorization: `Bearer ${token}`,
      });
      assert.ok(!redirected(encoded), 'an encoded admin path is the admin API too');
    });

    test("the service's own names are refused at add time: 400 for addresses, 409 for its public host", async () => {
      for (const name of ['127.0.0.1', '1.2.3.4', '127.1', '0x7f.1', '10.0.0.1', 'localhost', '[::1]']) {
        assertError(await admin('POST', '/domains', { name }), 400, 'validation_failed');
      }
      assertError(
        await admin('POST', '/domains', { name: 'x.example.test', redirectTo: '127.0.0.1' }),
        400,
        'validation_failed',
      );
      const own = await admin('POST', '/domains', { name: OWN, redirectTo: 'evil.example.net' });
      assertError(own, 409, 'domain_conflict');
      assert.match((own.body as { message: string }).message, /one of this service's own names/);
    });

    test('an own name stored anyway (before this check existed) is still never redirected', async () => {
      const now = new Date().toISOString();
      const record: DomainRecord = {
        name: OWN,
        source: 'api',
        primary: false,
        redirectTo: 'evil.example.net',
        redirectStatus: 301,
        state: 'active',
        reason: 'stored by an older release',
        fix: null,
        token: 'token',
        addedAt: now,
        stateSince: now,
        checkedAt: now,
        nextCheckAt: new Date(Date.now() + 86_400_000).toISOString(),
        lastCheck: 'passed',
        certificate: null,
      };
      const entry = { at: now, actor: 'test', action: 'domain.added' as const, target: OWN, details: {} };
      assert.equal(await server.deps.storage.domains.add(record, entry), undefined);
      await server.deps.domains.registry.refresh();
      for (const path of ['/v1/categories', '/openapi.json', '/healthz']) {
        const answer = await asHost(OWN, path, { authorization: `Bearer ${server.key}` });
        assert.ok(!redirected(answer), `${path}: ${answer.status} ${answer.headers.location ?? ''}`);
      }
    });
  });
}
