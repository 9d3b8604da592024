import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import type { AdminLoggedRequest } from '../../src/contract/index.js';
import { BACKENDS, backendEnvironment } from '../support/backends.js';
import { CLI, runCli, type ServerProcess, spawnServer } from '../support/process.js';
import { request, tempDir } from '../support/server.js';

const jsonRows = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AdminLoggedRequest);

for (const backend of BACKENDS) {
  describe(`petstore requests (${backend.name})`, () => {
    let dir: ReturnType<typeof tempDir>;
    let environment: Awaited<ReturnType<typeof backendEnvironment>>;
    let env: Record<string, string>;
    let server: ServerProcess;
    let key: string;
    let keyId: string;
    const sent: { requestId: string; status: number }[] = [];

    before(async () => {
      dir = tempDir('petstore-requests-');
      environment = await backendEnvironment(backend, `${dir.dir}/petstore.db`);
      env = { ...environment.env, PETSTORE_DATA_DIR: dir.dir };
      server = await spawnServer(env);
      const created = await runCli(['keys', 'create', '--plan', 'pro', '--json'], env);
      ({ key, id: keyId } = JSON.parse(created.stdout) as { key: string; id: string });
      for (const path of ['/v1/categories', '/v1/pets/999999', '/v1/nowhere']) {
        // The first may come before the server knows the new key: sent until it does.
        let answer = await request(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
        while (answer.status === 401) {
          answer = await request(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
        }
        sent.push({ requestId: answer.headers.get('x-request-id') as string, status: answer.status });
      }
    });
    after(async () => {
      server.child.kill('SIGTERM');
      await server.exited;
      await environment.cleanup();
      dir.remove();
    });

    test('--key, --status and --id find exactly the rows sent, as the admin API shows them', async () => {
      // A row reaches the store within a flush of its answer.
      let rows: AdminLoggedRequest[] = [];
      while (rows.length < sent.length) {
        const listed = await runCli(['requests', '--key', keyId, '--json'], env);
        assert.equal(listed.code, 0, listed.stderr);
        rows = jsonRows(listed.stdout).filter((row) => row.status !== 401);
      }
      assert.deepEqual(
        rows.map((row) => [row.requestId, row.status]),
        sent.map((row) => [row.requestId, row.status]),
        'oldest first',
      );
      const failed = await runCli(['requests', '--key', keyId, '--status', '4xx', '--json'], env);
      assert.deepEqual(
        jsonRows(failed.stdout).map((row) => row.requestId),
        sent.filter((row) => row.status >= 400 && row.status !== 401).map((row) => row.requestId),
      );
      const quoted = sent[1] as { requestId: string };
      const one = await runCli(['requests', '--id', quoted.requestId], env);
      assert.equal(one.code, 0, one.stderr);
      assert.match(
        one.stdout,
        new RegExp(
          `^\\S+Z  GET /v1/pets/999999  404  not_found  ${keyId}  from 127\\.0\\.0\\.1  [\\d.]+ ms  ${quoted.requestId}\\n$`,
        ),
      );
      // A stranger's row says so, and where it came from: an address never sits where a key would.
      const stranger = await request(`${server.url}/v1/categories`);
      const strangerId = stranger.headers.get('x-request-id') as string;
      let strangerLine = '';
      while (strangerLine === '') strangerLine = (await runCli(['requests', '--id', strangerId], env)).stdout;
      assert.match(strangerLine, / 401 {2}missing_api_key {2}no key {2}from 127\.0\.0\.1 {2}/);
      // An id asked for and not found fails, for a script to see.
      const none = await runCli(['requests', '--id', 'no-such-request'], env);
      assert.equal(none.code, 1);
      assert.equal(none.stdout, '');
      assert.match(none.stderr, /no request of the kept days has the id no-such-request/);
      const typo = await runCli(['requests', '--stauts', '404'], env);
      assert.equal(typo.code, 2);
      assert.match(typo.stderr, /unknown option --stauts: did you mean --status\?/);
      const bad = await runCli(['requests', '--status', '6xx'], env);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--status takes a status such as 404 or a class such as 4xx/);
      const since = await runCli(['requests', '--since', 'yesterday'], env);
      assert.equal(since.code, 2);
    });

    test('--api v1 prints the API’s requests alone, --api admin the admin API’s', async () => {
      const stranger = await request(`${server.url}/admin/v1/keys`);
      assert.equal(stranger.status, 401);
      const strangerId = stranger.headers.get('x-request-id') as string;
      let admins: AdminLoggedRequest[] = [];
      while (!admins.some((row) => row.requestId === strangerId)) {
        const listed = await runCli(['requests', '--api', 'admin', '--json'], env);
        assert.equal(listed.code, 0, listed.stderr);
        admins = jsonRows(listed.stdout);
      }
      assert.ok(admins.every((row) => row.path.startsWith('/admin/v1/')));
      const api = jsonRows(
        (await runCli(['requests', '--api', 'v1', '--limit', '200', '--json'], env)).stdout,
      );
      assert.ok(api.length >= sent.length && api.every((row) => row.path.startsWith('/v1/')));
      assert.ok(sent.every((row) => api.some((listed) => listed.requestId === row.requestId)));
      const bad = await runCli(['requests', '--api', 'v2'], env);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--api takes v1 or admin \(got v2\)/);
    });

    test('--follow prints each new row as it lands, and stops on SIGINT', async () => {
      const follower = spawn(
        process.execPath,
        [CLI, 'requests', '--key', keyId, '--follow', '--limit', '1'],
        {
          env: { ...process.env, ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      const waiting: (() => void)[] = [];
      follower.stdout.on('data', (chunk) => {
        stdout += chunk;
        for (const wake of waiting.splice(0)) wake();
      });
      follower.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      /** Resolves once the follower printed `text`: an event, never a fixed wait. */
      const printed = async (text: string) => {
        while (!stdout.includes(text)) await new Promise<void>((resolve) => waiting.push(resolve));
      };
      // The newest row first: the follower has started.
      await printed((sent.at(-1) as { requestId: string }).requestId);
      const answer = await request(`${server.url}/v1/categories?limit=1`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const requestId = answer.headers.get('x-request-id') as string;
      await printed(requestId);
      follower.kill('SIGINT');
      const [code] = (await once(follower, 'exit')) as [number | null];
      assert.equal(code, 0, stderr);
      assert.equal(stdout.split(requestId).length, 2, 'printed once');
    });
  });
}
