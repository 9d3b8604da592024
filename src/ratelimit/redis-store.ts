import { Redis } from 'ioredis';
import type { BanPolicy, Limits } from './policy.js';
import { type Decision, type RateLimitStore, type WindowState, windowState } from './store.js';

/**
 * One request, atomically, on Redis's clock (`TIME`), so instances whose clocks disagree still share exact
 * windows: check the ban, check both windows, count in both if admitted, else count the refusal towards a
 * ban. Every key expires with its window, so Redis holds only live state. KEYS[1] is the subject's prefix,
 * with a hash tag so that all of a subject's keys live in one cluster slot.
 *
 * Replies: {kind (1 allowed, 2 limited, 3 banned), minuteCount, dayCount, minuteEnd, dayEnd,
 * retryAt or bannedUntil, banStarted, now}.
 */
const HIT = `
local prefix = KEYS[1]
local perMinute, perDay = tonumber(ARGV[1]), tonumber(ARGV[2])
local banAfter, banMs = tonumber(ARGV[3]), tonumber(ARGV[4])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local minuteStart = now - (now % 60000)
local dayStart = now - (now % 86400000)
local minuteEnd, dayEnd = minuteStart + 60000, dayStart + 86400000
local minuteKey, dayKey = prefix .. ':m:' .. minuteStart, prefix .. ':d:' .. dayStart
local banKey = prefix .. ':ban'
local minute = tonumber(redis.call('GET', minuteKey) or '0')
local day = tonumber(redis.call('GET', dayKey) or '0')
local bannedUntil = tonumber(redis.call('GET', banKey) or '0')
if bannedUntil > now then
  return {3, minute, day, minuteEnd, dayEnd, bannedUntil, 0, now}
end
local function count(key, expireAt)
  local value = redis.call('INCR', key)
  if value == 1 then redis.call('PEXPIREAT', key, expireAt) end
  return value
end
if minute < perMinute and day < perDay then
  minute = count(minuteKey, minuteEnd + 1000)
  day = count(dayKey, dayEnd + 1000)
  return {1, minute, day, minuteEnd, dayEnd, 0, 0, now}
end
local refused = 0
if minute >= perMinute then refused = count(prefix .. ':rm:' .. minuteStart, minuteEnd + 1000) end
if day >= perDay then refused = math.max(refused, count(prefix .. ':rd:' .. dayStart, dayEnd + 1000)) end
local retryAt = minuteEnd
if day >= perDay then retryAt = dayEnd end
local banStarted = 0
if banAfter > 0 and refused >= banAfter then
  redis.call('SET', banKey, now + banMs, 'PX', banMs)
  redis.call('DEL', prefix .. ':rm:' .. minuteStart, prefix .. ':rd:' .. dayStart)
  banStarted = 1
end
return {2, minute, day, minuteEnd, dayEnd, retryAt, banStarted, now}
`;

/**
 * A subject's windows and ban, on Redis's clock, counting nothing. Replies: {kind (1 allowed, 3 banned),
 * minuteCount, dayCount, minuteEnd, dayEnd, bannedUntil, now}.
 */
const PEEK = `
local prefix = KEYS[1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local minuteStart = now - (now % 60000)
local dayStart = now - (now % 86400000)
local minute = tonumber(redis.call('GET', prefix .. ':m:' .. minuteStart) or '0')
local day = tonumber(redis.call('GET', prefix .. ':d:' .. dayStart) or '0')
local bannedUntil = tonumber(redis.call('GET', prefix .. ':ban') or '0')
local kind = 1
if bannedUntil > now then kind = 3 end
return {kind, minute, day, minuteStart + 60000, dayStart + 86400000, bannedUntil, now}
`;

/** Lifts a ban and forgets the refusals of the current windows. */
const UNBAN = `
local prefix = KEYS[1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('DEL', prefix .. ':ban', prefix .. ':rm:' .. (now - (now % 60000)), prefix .. ':rd:' .. (now - (now % 86400000)))
return 1
`;

type Reply = [number, number, number, number, number, number, number, number];

interface RedisWithScripts extends Redis {
  petstoreHit(
    prefix: string,
    perMinute: number,
    perDay: number,
    banAfter: number,
    banMs: number,
  ): Promise<Reply>;
  petstoreUnban(prefix: string): Promise<number>;
  petstorePeek(prefix: string): Promise<[number, number, number, number, number, number, number]>;
}

/** A ban this instance already knows of: refused without a round trip until it ends. */
interface KnownBan {
  until: number;
  minute: WindowState;
  day: WindowState;
}

/**
 * The shared store of a fleet: counters and bans in Redis, exact across instances. Commands fail fast when
 * Redis is unreachable (no offline queue, a command timeout), so the failure policy decides at once.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: RedisWithScripts;
  readonly #prefix: string;
  readonly #bans = new Map<string, KnownBan>();
  /** Redis's clock minus ours, from the last reply: lets a known ban end on Redis's time, not ours. */
  #offset = 0;

  constructor(options: { url: string; keyPrefix?: string; commandTimeoutMs?: number }) {
    this.#prefix = options.keyPrefix ?? 'petstore:rl:';
    this.#redis = new Redis(options.url, {
      // The scripts of one event-loop turn leave in one write and come back in one read: a round trip per
      // turn, not per request. Each script still runs alone and atomically in Redis, on Redis's clock.
      enableAutoPipelining: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 500,
      connectTimeout: 2_000,
      // Keep trying to reconnect, at most every 2 s; requests meanwhile go to the failure policy.
      retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    }) as RedisWithScripts;
    // Errors surface on the commands; without a listener ioredis would also print each one.
    this.#redis.on('error', () => {});
    this.#redis.defineCommand('petstoreHit', { numberOfKeys: 1, lua: HIT });
    this.#redis.defineCommand('petstoreUnban', { numberOfKeys: 1, lua: UNBAN });
    this.#redis.defineCommand('petstorePeek', { numberOfKeys: 1, lua: PEEK });
  }

  async hit(subject: string, limits: Limits, _now: number, ban: BanPolicy | null): Promise<Decision> {
    const known = this.#bans.get(subject);
    if (known !== undefined) {
      const now = Date.now() + this.#offset;
      if (known.until > now)
        return { kind: 'banned', minute: known.minute, day: known.day, until: known.until, now };
      this.#bans.delete(subject);
    }
    const [kind, minuteCount, dayCount, minuteEnd, dayEnd, at, banStarted, now] =
      await this.#redis.petstoreHit(
        `${this.#prefix}{${subject}}`,
        limits.perMinute,
        limits.perDay,
        ban?.after ?? 0,
        ban?.durationMs ?? 0,
      );
    this.#offset = now - Date.now();
    const minute = windowState(limits.perMinute, minuteCount, minuteEnd);
    const day = windowState(limits.perDay, dayCount, dayEnd);
    if (kind === 1) return { kind: 'allowed', minute, day, now };
    if (kind === 3) {
      this.#bans.set(subject, { until: at, minute, day });
      return { kind: 'banned', minute, day, until: at, now };
    }
    return { kind: 'limited', minute, day, retryAt: at, banStarted: banStarted === 1, now };
  }

  async peek(subject: string, limits: Limits, _now: number): Promise<Decision> {
    const [kind, minuteCount, dayCount, minuteEnd, dayEnd, bannedUntil, now] = await this.#redis.petstorePeek(
      `${this.#prefix}{${subject}}`,
    );
    this.#offset = now - Date.now();
    const minute = windowState(limits.perMinute, minuteCount, minuteEnd);
    const day = windowState(limits.perDay, dayCount, dayEnd);
    return kind === 3
      ? { kind: 'banned', minute, day, until: bannedUntil, now }
      : { kind: 'allowed', minute, day, now };
  }

  /**
   * Waits for the first connection, so the first requests after a start are not refused for want of one.
   * Rejects after `timeoutMs` if Redis cannot be reached; the caller decides what that means.
   */
  async connect(timeoutMs = 3_000): Promise<void> {
    if (this.#redis.status === 'ready') return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#redis.off('ready', onReady);
        reject(new Error(`Redis was not reachable within ${timeoutMs} ms`));
      }, timeoutMs);
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      this.#redis.once('ready', onReady);
    });
  }

  async unban(subject: string): Promise<void> {
    this.#bans.delete(subject);
    await this.#redis.petstoreUnban(`${this.#prefix}{${subject}}`);
  }

  async ping(): Promise<void> {
    await this.#redis.ping();
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
  }
}
