import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateKey, KEY_REFRESH_MS, MISS_RECHECKS_PER_SECOND } from '../../src/keys/index.js';
import { assertError } from '../support/assertions.js';
import { BACKENDS } from '../support/backends.js';
import { runCli } from '../support/process.js';
import { startTestServer, type TestServer } from '../support/server.js';

for (const backend of BACKENDS) {
  describe(`a credential works the moment its creator returns (${backend.name})`, () => {
    let server: TestServer;
    before(async () => {
      // Strangers are limited per address: room for the made-up keys below.
      server = await startTestServer(
        {},
        { backend, configFile: { anonymous: { perMinute: 100_000, perDay: 1_000_000 } } },
      );
    });
    after(() => server.close());

    /** How many times the server has read the credentials' version so far. */
    const versionReads = async () => {
      const metrics = (await server.call('/metrics')).text;
      const found = /^petstore_storage_call_duration_seconds_count\{call="apiKeys\.version"\} (\d+)$/m.exec(
        metrics,
      );
      return Number(found?.[1] ?? 0);
    };

    test('the admin example of docs/keys-and-admin-api.md, pasted: a token from the CLI, then a key from the API, each used at once', async () => {
      const created = await runCli(['admin-tokens', 'create', '--name', 'signup', '--json'], server.env);
      assert.equal(created.code, 0, created.stderr);
      const { token } = JSON.parse(created.stdout) as { token: string };
      server.issuedKeys.push(token);
      const key = await server.admin(token, '/keys', {
        method: 'POST',
        json: { plan: 'free', name: 'alice' },
      });
      assert.equal(key.status, 201, key.text);
      const made = key.body as { key: string };
      server.issuedKeys.push(made.key);
      const used = await server.call('/v1/categories', { headers: { authorization: `Bearer ${made.key}` } });
      assert.equal(used.status, 200, used.text);

      const fromCli = await runCli(['keys', 'create', '--plan', 'pro', '--json'], server.env);
      const cliKey = (JSON.parse(fromCli.stdout) as { key: string }).key;
      server.issuedKeys.push(cliKey);
      assert.equal(
        (await server.call('/v1/categories', { headers: { authorization: `Bearer ${cliKey}` } })).status,
        200,
      );
    });

    test('made-up keys with valid checksums cost a bounded number of reads, and one sent again none', async () => {
      const started = performance.now();
      const before = await versionReads();
      for (let i = 0; i < 300; i += 1) {
        const made = await server.call('/v1/categories', {
          headers: { authorization: `Bearer ${generateKey('production')}` },
        });
        assertError(made, 401, 'invalid_api_key');
      }
      const seconds = (performance.now() - started) / 1000;
      // The budget, refilled as time passes, and the polls of both authenticators meanwhile.
      const polls = 2 * Math.ceil((seconds * 1000) / KEY_REFRESH_MS + 1);
      const bound = MISS_RECHECKS_PER_SECOND * (1 + seconds) + polls;
      const reads = (await versionReads()) - before;
      assert.ok(
        reads <= bound,
        `${reads} reads for 300 made-up keys in ${seconds.toFixed(2)} s (bound ${bound})`,
      );

      const revoked = await server.createKey({ plan: 'free', name: 'revoked' });
      await server.revokeKey(revoked.id);
      const again = await versionReads();
      const sentAt = performance.now();
      for (let i = 0; i < 100; i += 1) {
        const answer = await server.call('/v1/categories', {
          headers: { authorization: `Bearer ${revoked.key}` },
        });
        assertError(answer, 401, 'invalid_api_key');
      }
      const pollsMeanwhile = 2 * Math.ceil((performance.now() - sentAt) / KEY_REFRESH_MS + 1);
      const repeated = (await versionReads()) - again;
      assert.ok(repeated <= 1 + pollsMeanwhile, `${repeated} reads for one revoked key sent 100 times`);
    });
  });
}
