import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { awaitKeyEverywhere, createKey, INSTANCES, startFleet } from '../support/fleet.js';
import { request } from '../support/server.js';

const REQUESTS = 200;

describe('Idempotency-Key across instances on PostgreSQL', () => {
  let fleet: Awaited<ReturnType<typeof startFleet>>;
  let key: string;
  before(async () => {
    fleet = await startFleet(Array.from({ length: INSTANCES }, () => 0));
    key = (await createKey(fleet.env, '--plan', 'business')).key;
    await awaitKeyEverywhere(fleet.servers, key);
  });
  after(() => fleet.stop());

  for (let trial = 1; trial <= 3; trial += 1) {
    test(`${REQUESTS} identical POSTs spread over ${INSTANCES} instances: one row (trial ${trial})`, async () => {
      const name = `Fleet ${trial}`;
      const create = (url: string | undefined) =>
        request(`${url}/v1/categories`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            'idempotency-key': `fleet-trial-${trial}`,
          },
          body: JSON.stringify({ name }),
        });
      const answers = await Promise.all(
        Array.from({ length: REQUESTS }, (_, i) => create(fleet.servers[i % INSTANCES]?.url)),
      );
      const created = answers.filter((answer) => answer.status === 201);
      const inUse = answers.filter((answer) => answer.status === 409);
      assert.equal(created.length + inUse.length, REQUESTS, `statuses: ${answers.map((a) => a.status)}`);
      assert.equal(new Set(created.map((answer) => answer.text)).size, 1, 'every 201 is the same answer');
      for (const answer of inUse) {
        assert.equal((answer.body as { code: string }).code, 'idempotency_key_in_use');
        assert.equal(answer.headers.get('retry-after'), '1');
      }
      // Every instance replays the one answer afterwards.
      for (const server of fleet.servers) {
        const retry = await create(server.url);
        assert.equal(retry.status, 201);
        assert.equal(retry.headers.get('idempotent-replayed'), 'true');
        if (created[0] !== undefined) assert.equal(retry.text, created[0].text);
      }
      const list = (await request(`${fleet.servers[0]?.url}/v1/categories`, {
        headers: { authorization: `Bearer ${key}` },
      })) as { body: { name: string }[] };
      assert.equal(list.body.filter((category) => category.name === name).length, 1);
    });
  }
});
