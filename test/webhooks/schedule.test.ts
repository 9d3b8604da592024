import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_ATTEMPTS, nextAttemptAt, RETRY_DELAYS_MS } from '../../src/webhooks/index.js';

const HOUR = 3_600_000;

test('retries back off from 5 seconds to 20 hours, ten attempts over about three days, then stop', () => {
  assert.equal(MAX_ATTEMPTS, 10);
  for (let i = 1; i < RETRY_DELAYS_MS.length; i += 1) {
    assert.ok((RETRY_DELAYS_MS[i] as number) >= (RETRY_DELAYS_MS[i - 1] as number), `delay ${i} grows`);
  }
  let at = 0;
  for (let attempts = 1; attempts < MAX_ATTEMPTS; attempts += 1) {
    const next = nextAttemptAt(attempts, at, () => 0.5);
    assert.ok(next !== undefined, `attempt ${attempts + 1} is scheduled`);
    at = next;
  }
  assert.equal(nextAttemptAt(MAX_ATTEMPTS, at), undefined, 'no attempt after the last');
  assert.ok(at > 70 * HOUR && at <= 72 * HOUR, `the last attempt ${at / HOUR} h after the first`);
});

test('each delay is jittered by at most a tenth either way', () => {
  assert.equal(
    nextAttemptAt(1, 1_000, () => 0),
    1_000 + 4_500,
  );
  assert.equal(
    nextAttemptAt(1, 1_000, () => 0.999_999),
    1_000 + 5_500,
  );
  const seen = new Set(Array.from({ length: 50 }, () => nextAttemptAt(3, 0)));
  assert.ok(seen.size > 1, 'two deliveries failing together are retried apart');
  for (const at of seen) assert.ok(at !== undefined && at >= 27 * 60_000 && at <= 33 * 60_000);
});
