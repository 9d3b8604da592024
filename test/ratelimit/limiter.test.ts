import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FakeClock } from '../../src/clock/index.js';
import { DEFAULT_RATE_LIMIT_POLICY } from '../../src/config/index.js';
import type { ApiKeyRecord, Plan } from '../../src/keys/index.js';
import { createLogger } from '../../src/log/index.js';
import {
  createRateLimiter,
  type Limits,
  MemoryRateLimitStore,
  rateLimitHeaders,
  retryAfterSeconds,
} from '../../src/ratelimit/index.js';
import { keyRecord } from '../support/key-record.js';

const logger = createLogger({ level: 'silent' });
const unix = (iso: string) => Date.parse(iso) / 1000;

/** A key of `plan`, with `limits` of its own if any: the limiter reads nothing else of it. */
const keyOf = (plan: Plan, limits: Limits | null = null) => keyRecord(`key_${plan}`, { plan, limits });

function setup(start: string) {
  const clock = new FakeClock(start);
  const store = new MemoryRateLimitStore();
  const limiter = createRateLimiter({ store, policy: DEFAULT_RATE_LIMIT_POLICY, clock, logger });
  /** One request: its headers as numbers, the Retry-After if refused, and the kind of decision. */
  const hit = (key: ApiKeyRecord) => {
    const decision = limiter.forKey(key);
    assert.ok(!(decision instanceof Promise));
    const headers = rateLimitHeaders(decision);
    return {
      kind: decision.kind,
      limit: Number(headers['x-ratelimit-limit']),
      remaining: Number(headers['x-ratelimit-remaining']),
      reset: Number(headers['x-ratelimit-reset']),
      ratelimit: headers.ratelimit,
      policy: headers['ratelimit-policy'],
      retryAfter: retryAfterSeconds(decision),
    };
  };
  return { clock, store, limiter, hit };
}

const PLANS: [string, ApiKeyRecord, Limits][] = [
  ['free', keyOf('free'), { perMinute: 60, perDay: 1_000 }],
  ['pro', keyOf('pro'), { perMinute: 300, perDay: 10_000 }],
  ['business', keyOf('business'), { perMinute: 1_000, perDay: 100_000 }],
  [
    'enterprise 1000/min 20/day',
    keyOf('enterprise', { perMinute: 1_000, perDay: 20 }),
    { perMinute: 1_000, perDay: 20 },
  ],
  [
    'enterprise 5/min 50/day',
    keyOf('enterprise', { perMinute: 5, perDay: 50 }),
    { perMinute: 5, perDay: 50 },
  ],
];

describe('fixed windows with a fake clock', () => {
  for (const [label, key, limits] of PLANS) {
    test(`${label}: every step of one minute, and the minute edge to the millisecond`, () => {
      const { clock, hit } = setup('2026-03-10T12:00:30.000Z');
      const admitted = Math.min(limits.perMinute, limits.perDay);
      const minuteBinds = limits.perMinute < limits.perDay;
      for (let i = 1; i <= admitted; i += 1) {
        const answer = hit(key);
        assert.equal(answer.kind, 'allowed');
        // The binding window has the fewest left: the minute unless the day is the smaller quota.
        const expectedRemaining = Math.min(limits.perMinute - i, limits.perDay - i);
        assert.equal(answer.remaining, expectedRemaining, `request ${i}`);
        if (limits.perMinute - i < limits.perDay - i || limits.perMinute - i === limits.perDay - i) {
          assert.equal(answer.limit, limits.perMinute);
          assert.equal(answer.reset, unix('2026-03-10T12:01:00Z'));
        } else {
          assert.equal(answer.limit, limits.perDay);
          assert.equal(answer.reset, unix('2026-03-11T00:00:00Z'));
        }
        assert.equal(answer.retryAfter, undefined);
        assert.equal(answer.policy, `"minute";q=${limits.perMinute};w=60, "day";q=${limits.perDay};w=86400`);
      }

      const refused = hit(key);
      assert.equal(refused.kind, 'limited');
      assert.equal(refused.remaining, 0);
      assert.equal(refused.retryAfter, minuteBinds ? 30 : 43_170);

      clock.set('2026-03-10T12:00:59.999Z');
      const lastMillisecond = hit(key);
      assert.equal(lastMillisecond.kind, 'limited');
      assert.equal(lastMillisecond.retryAfter, minuteBinds ? 1 : 43_141, 'never 0, rounded up');

      clock.set('2026-03-10T12:01:00.000Z');
      const next = hit(key);
      if (minuteBinds) {
        assert.equal(next.kind, 'allowed', 'a new minute admits again');
        assert.equal(next.remaining, Math.min(limits.perMinute - 1, limits.perDay - admitted - 1));
      } else {
        assert.equal(next.kind, 'limited', 'the day is still exhausted');
        assert.equal(next.retryAfter, 43_140);
        assert.equal(next.reset, unix('2026-03-11T00:00:00Z'));
      }
    });

    test(`${label}: the whole day, and the UTC day boundary to the millisecond`, () => {
      const { clock, hit } = setup('2026-03-10T00:00:00.000Z');
      let admitted = 0;
      while (admitted < limits.perDay) {
        const answer = hit(key);
        if (answer.kind === 'allowed') {
          admitted += 1;
          assert.equal(
            answer.remaining,
            Math.min(limits.perDay - admitted, limits.perMinute - ((admitted - 1) % limits.perMinute) - 1),
          );
        } else {
          // The minute is exhausted: go to the next one.
          assert.equal(answer.kind, 'limited');
          clock.advance(60_000 - (clock.now() % 60_000));
        }
      }
      clock.set('2026-03-10T23:59:59.999Z');
      const lastMillisecond = hit(key);
      assert.equal(lastMillisecond.kind, 'limited');
      assert.equal(lastMillisecond.limit, limits.perDay);
      assert.equal(lastMillisecond.remaining, 0);
      assert.equal(lastMillisecond.reset, unix('2026-03-11T00:00:00Z'));
      assert.equal(lastMillisecond.retryAfter, 1);
      assert.equal(lastMillisecond.ratelimit, '"day";r=0;t=1');

      clock.set('2026-03-11T00:00:00.000Z');
      const newDay = hit(key);
      assert.equal(newDay.kind, 'allowed');
      assert.equal(newDay.remaining, Math.min(limits.perMinute, limits.perDay) - 1);
    });
  }

  test('a tie between the windows goes to the one that resets first', () => {
    const { hit } = setup('2026-03-10T12:00:00.000Z');
    const answer = hit(keyOf('enterprise', { perMinute: 10, perDay: 10 }));
    assert.equal(answer.remaining, 9);
    assert.equal(answer.reset, unix('2026-03-10T12:01:00Z'));
    assert.equal(answer.ratelimit, '"minute";r=9;t=60');
  });
});

describe('bans', () => {
  test('60 refusals in one window ban the key for 15 minutes; other keys are unaffected; the ban ends on time', () => {
    const { clock, hit } = setup('2026-03-10T12:00:00.000Z');
    const free = keyOf('free');
    const other = { ...keyOf('free'), id: 'key_other', budgetId: 'key_other' };
    for (let i = 0; i < 60; i += 1) assert.equal(hit(free).kind, 'allowed');
    for (let i = 1; i <= 60; i += 1) {
      clock.advance(100);
      const refused = hit(free);
      assert.equal(refused.kind, 'limited', `refusal ${i} is still a plain 429`);
    }
    const bannedAt = clock.now();
    clock.advance(100);
    const banned = hit(free);
    assert.equal(banned.kind, 'banned');
    assert.equal(banned.retryAfter, 900, 'Retry-After covers the ban');
    assert.equal(banned.remaining, 0);
    assert.equal(banned.reset, Math.ceil((bannedAt + 900_000) / 1000));

    assert.equal(hit(other).kind, 'allowed', 'another key is not affected');

    clock.set(bannedAt + 900_000 - 1);
    const lastMillisecond = hit(free);
    assert.equal(lastMillisecond.kind, 'banned');
    assert.equal(lastMillisecond.retryAfter, 1);

    clock.set(bannedAt + 900_000);
    const after = hit(free);
    assert.equal(after.kind, 'allowed', 'the ban ends on time');
  });

  test('refusals below the threshold ban nobody, and a new window forgets them', () => {
    const { clock, hit } = setup('2026-03-10T12:00:00.000Z');
    const free = keyOf('free');
    for (let i = 0; i < 60; i += 1) hit(free);
    for (let i = 0; i < 59; i += 1) assert.equal(hit(free).kind, 'limited');
    clock.set('2026-03-10T12:01:00.000Z');
    for (let i = 0; i < 60; i += 1) assert.equal(hit(free).kind, 'allowed');
    for (let i = 0; i < 59; i += 1) assert.equal(hit(free).kind, 'limited');
    assert.equal(hit(free).kind, 'limited');
    assert.equal(hit(free).kind, 'banned');
  });

  test('unban lifts a ban at once', async () => {
    const { limiter, hit } = setup('2026-03-10T12:00:00.000Z');
    const free = keyOf('free');
    for (let i = 0; i < 121; i += 1) hit(free);
    assert.equal(hit(free).kind, 'banned');
    await limiter.unban(free);
    assert.equal(hit(free).kind, 'limited', 'the window is still exhausted, but the ban is gone');
  });
});

describe('memory stays bounded', () => {
  test('counters of past days are dropped', () => {
    const { clock, store, limiter } = setup('2026-03-10T12:00:00.000Z');
    for (let i = 0; i < 1_000; i += 1) limiter.forAddress(`10.0.${i >> 8}.${i & 255}`);
    assert.equal(store.size, 1_000);
    clock.set('2026-03-11T00:01:00.000Z');
    limiter.forAddress('10.9.9.9');
    assert.equal(store.size, 1);
  });
});
