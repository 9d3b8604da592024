import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { BACKENDS, backendEnvironment } from '../support/backends.js';
import { createUnlimitedKey, runCli, type ServerProcess, spawnServer } from '../support/process.js';
import { tempDir } from '../support/server.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

const CYCLES = 3;

for (const backend of BACKENDS) {
  test(`a create acknowledged with 201 is told to its endpoint though the server is killed the next instant (${backend.name})`, async (t) => {
    const { dir, remove } = tempDir('petstore-webhook-crash-');
    const storage = await backendEnvironment(backend, path.join(dir, 'petstore.db'));
    // A lease of a second, so that the restarted server takes over a delivery the killed one had claimed
    // without waiting the minute; retries at once.
    const env = {
      ...storage.env,
      LOG_LEVEL: 'info',
      WEBHOOKS_ALLOW_PRIVATE: 'true',
      WEBHOOKS_LEASE_MS: '1000',
      WEBHOOKS_RETRY_DELAYS_MS: '100',
    };
    const receiver = await startWebhookReceiver();
    const apiKey = await createUnlimitedKey(env);
    const made = await runCli(['admin-tokens', 'create', '--name', 'hooks', '--json'], env);
    assert.equal(made.code, 0, made.stderr);
    const admin = { authorization: `Bearer ${(JSON.parse(made.stdout) as { token: string }).token}` };
    let server: ServerProcess = await spawnServer(env);
    t.after(async () => {
      if (server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill('SIGKILL');
        await server.exited;
      }
      await receiver.close();
      await storage.cleanup();
      remove();
    });

    const endpoint = (await (
      await fetch(`${server.url}/admin/v1/webhooks`, {
        method: 'POST',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${receiver.url}/in`, events: ['category.created'] }),
      })
    ).json()) as { id: string; secret: string };

    // The receiver hangs while servers are killed: an attempt the killed server had begun dies with it.
    receiver.holdAll(true);
    const created: number[] = [];
    for (let cycle = 0; cycle < CYCLES; cycle += 1) {
      const answer = await fetch(`${server.url}/v1/categories`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `told after a kill ${cycle}` }),
      });
      assert.equal(answer.status, 201);
      server.child.kill('SIGKILL');
      created.push(((await answer.json()) as { id: number }).id);
      await server.exited;
      server = await spawnServer(env);
    }
    receiver.holdAll(false);

    // Every delivery ends delivered: the events outlived the servers that kept them.
    const deliveriesUrl = `${server.url}/admin/v1/webhooks/${endpoint.id}/deliveries`;
    for (;;) {
      const deliveries = (await (await fetch(deliveriesUrl, { headers: admin })).json()) as {
        state: string;
      }[];
      assert.equal(deliveries.length, CYCLES);
      if (deliveries.every((delivery) => delivery.state === 'delivered')) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const verifier = new Webhook(endpoint.secret);
    const told = new Map<number, string>();
    for (const received of receiver.received) {
      const event = verifier.verify(received.body, {
        'webhook-id': String(received.headers['webhook-id']),
        'webhook-timestamp': String(received.headers['webhook-timestamp']),
        'webhook-signature': String(received.headers['webhook-signature']),
      }) as { id: string; data: { id: number } };
      // Sent more than once (an attempt that died with its server), always as the same event.
      assert.equal(told.get(event.data.id) ?? event.id, event.id);
      told.set(event.data.id, event.id);
    }
    assert.deepEqual([...told.keys()].sort(), [...created].sort());
  });
}
