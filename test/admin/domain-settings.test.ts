import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.js';

interface DomainSettingsView {
  target: string | null;
  requireTxt: boolean;
}

/**
 * `GET /admin/v1/domain-settings`: what a domain's owner will be asked to point at, before any domain is added,
 * so that the console can say when the operator has not set `DOMAINS_TARGET` yet.
 */
describe('the domain settings of the admin API', () => {
  const servers: TestServer[] = [];
  after(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  const settingsOf = async (env: Record<string, string>) => {
    const server = await startTestServer(env);
    servers.push(server);
    const { token } = await server.createAdminToken();
    const answer = await server.admin(token, '/domain-settings');
    assert.equal(answer.status, 200, answer.text);
    return answer.body as DomainSettingsView;
  };

  test('DOMAINS_TARGET as configured (lower case, without its final dot), and TXT not required by default', async () => {
    assert.deepEqual(await settingsOf({ DOMAINS_TARGET: 'Edge.Example.NET.' }), {
      target: 'edge.example.net',
      requireTxt: false,
    });
  });

  test('no DOMAINS_TARGET: target null; DOMAINS_REQUIRE_TXT=on says the TXT record is required', async () => {
    assert.deepEqual(await settingsOf({ DOMAINS_REQUIRE_TXT: 'on' }), { target: null, requireTxt: true });
  });
});
