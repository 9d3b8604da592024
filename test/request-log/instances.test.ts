import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AdminLoggedRequest } from '../../src/contract/index.js';
import { requestLogFile, Sqlite } from '../../src/storage/index.js';
import { awaitKeyEverywhere, createKey, startFleet } from '../support/fleet.js';
import { runCli, spawnServer } from '../support/process.js';
import { request, tempDir } from '../support/server.js';

/** An admin token made by the CLI against `env`'s database. */
async function adminToken(env: Record<string, string>): Promise<string> {
  const made = await runCli(['admin-tokens', 'create', '--name', 'reader', '--json'], env);
  assert.equal(made.code, 0, made.stderr);
  return (JSON.parse(made.stdout) as { token: string }).token;
}

describe('the request log across instances and crashes', () => {
  test('two PostgreSQL + Redis instances: a reader on either sees both instances’ rows', async (t) => {
    const fleet = await startFleet([0, 0]);
    t.after(() => fleet.stop());
    const { key, id } = await createKey(fleet.env, '--plan', 'pro');
    const token = await adminToken(fleet.env);
    await awaitKeyEverywhere(fleet.servers, key);
    const sent: string[] = [];
    for (let index = 0; index < 10; index += 1) {
      const server = fleet.servers[index % 2] as { url: string };
      const answer = await request(`${server.url}/v1/categories`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(answer.status, 200);
      sent.push(answer.headers.get('x-request-id') as string);
    }
    const lastAnswer = Date.now();
    for (const reader of fleet.servers) {
      // Each instance writes its rows every 250 ms; a reader sees the other's rows once they are written.
      let rows: AdminLoggedRequest[] = [];
      const deadline = Date.now() + 10_000;
      while (!sent.every((requestId) => rows.some((row) => row.requestId === requestId))) {
        assert.ok(Date.now() < deadline, `${reader.url} misses rows of the other instance after 10 s`);
        const answer = await request(`${reader.url}/admin/v1/requests?key=${id}&limit=200`, {
          headers: { authorization: `Bearer ${token}` },
        });
        assert.equal(answer.status, 200, answer.text);
        rows = answer.body as AdminLoggedRequest[];
        await sleep(50);
      }
      t.diagnostic(`${reader.url} saw every row ${Date.now() - lastAnswer} ms after the last answer`);
      assert.equal(new Set(rows.map((row) => row.instance)).size, 2, 'rows of both instances');
    }
  });

  test('SIGKILL under creates: every acknowledged create is there, the log lost at most its last second and is whole', async (t) => {
    const dir = tempDir('petstore-request-log-kill-');
    t.after(dir.remove);
    const env = { DATABASE_URL: `sqlite:${path.join(dir.dir, 'petstore.db')}`, PETSTORE_DATA_DIR: dir.dir };
    const server = await spawnServer(env);
    const { key } = await createKey(
      env,
      '--plan',
      'enterprise',
      '--per-minute',
      '100000',
      '--per-day',
      '1000000',
    );
    await awaitKeyEverywhere([server], key);
    const acknowledged: { id: number; requestId: string; at: number }[] = [];
    let stop = false;
    let sequence = 0;
    const client = async () => {
      while (!stop) {
        sequence += 1;
        const answer = await request(`${server.url}/v1/categories`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `kill-${sequence}` }),
        }).catch(() => undefined);
        if (answer?.status === 201) {
          acknowledged.push({
            id: (answer.body as { id: number }).id,
            requestId: answer.headers.get('x-request-id') as string,
            at: Date.now(),
          });
        }
      }
    };
    const clients = Array.from({ length: 8 }, client);
    while (acknowledged.length < 300) await sleep(20);
    const killedAt = Date.now();
    server.child.kill('SIGKILL');
    await server.exited;
    stop = true;
    await Promise.all(clients);

    const log = new Sqlite(requestLogFile(path.join(dir.dir, 'petstore.db')));
    let logged: Set<string>;
    try {
      assert.equal(log.pragma('integrity_check', { simple: true }), 'ok');
      logged = new Set(log.prepare('SELECT request_id FROM requests').pluck().all() as string[]);
    } finally {
      log.close();
    }
    const lostBefore = acknowledged.filter((row) => row.at < killedAt - 1_000 && !logged.has(row.requestId));
    assert.deepEqual(lostBefore, [], 'a row answered more than a second before the kill was lost');
    t.diagnostic(
      `${acknowledged.length} creates acknowledged; ${acknowledged.filter((row) => !logged.has(row.requestId)).length} of their rows lost, all in the last second`,
    );

    const again = await spawnServer(env);
    t.after(async () => {
      again.child.kill('SIGTERM');
      await again.exited;
    });
    const listed = await request(`${again.url}/v1/categories`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const ids = new Set((listed.body as { id: number }[]).map((category) => category.id));
    assert.deepEqual(
      acknowledged.filter((row) => !ids.has(row.id)),
      [],
      'every acknowledged create is stored',
    );
  });
});
