import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock } from '../../src/clock/index.js';
import type { KeyInfo } from '../../src/contract/index.js';
import { BACKENDS, SQLITE_MEMORY } from '../support/backends.js';
import { startTestServer } from '../support/server.js';

const START = '2026-12-01T10:00:00.000Z';
const as = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });

for (const backend of BACKENDS) {
  describe(`a key's last use and today's use say the same on its page and in the console (${backend.name})`, () => {
    test('GET /v1/key shows the last use after this instance flushed its counts, never the time keys were loaded', async () => {
      const clock = new FakeClock(START);
      const server = await startTestServer({}, { backend, clock });
      try {
        const admin = await server.createAdminToken('desk', 'viewer');
        const { id, key } = await server.createKey({ plan: 'pro', name: 'used' });
        clock.advance(60_000);
        const usedAt = new Date(clock.now()).toISOString();
        assert.equal((await server.call('/v1/categories', as(key))).status, 200);
        await server.deps.recorder.flush();
        clock.advance(60_000);
        const shown = (await server.admin(admin.token, `/keys/${id}`)).body as { lastUsedAt: string };
        assert.equal(shown.lastUsedAt, usedAt, 'the admin API');
        const info = (await server.call('/v1/key', as(key))).body as KeyInfo;
        assert.equal(info.lastUsedAt, usedAt, 'the key page says the same');
      } finally {
        await server.close();
      }
    });
  });
}

describe('limits counted in memory, across a restart', () => {
  test("a restart does not give a key its day again: today's window starts at what storage counted, as the console says", async () => {
    const clock = new FakeClock(START);
    const first = await startTestServer({}, { backend: SQLITE_MEMORY, clock });
    let second: Awaited<ReturnType<typeof startTestServer>> | undefined;
    try {
      const { key } = await first.createKey({
        plan: 'enterprise',
        name: 'busy',
        limits: { perMinute: 20, perDay: 20 },
      });
      for (let call = 0; call < 7; call += 1) {
        assert.equal((await first.call('/v1/categories', as(key))).status, 200);
      }
      await first.deps.recorder.flush();
      // The same database, a new process's limiter: as after `systemctl restart`.
      second = await startTestServer({ DATABASE_URL: `sqlite:${first.file}` }, { clock });
      const info = (await second.call('/v1/key', as(key))).body as KeyInfo;
      assert.equal(info.limits.day.remaining, 20 - 7, 'the key page: 7 of 20 used');
      const admin = await second.createAdminToken('desk', 'viewer');
      const today = (await second.admin(admin.token, '/usage/keys?limit=1000')).body as {
        name: string;
        used: number;
      }[];
      assert.equal(today.find((row) => row.name === 'busy')?.used, 7, 'the console: 7 used');
      for (let call = 7; call < 20; call += 1) {
        assert.equal((await second.call('/v1/categories', as(key))).status, 200);
      }
      assert.equal((await second.call('/v1/categories', as(key))).status, 429, 'the day is spent');
    } finally {
      await second?.close();
      await first.close();
    }
  });
});
