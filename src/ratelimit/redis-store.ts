import { createRequire } from 'node:module';
import type { ChainableCommander, Redis } from 'ioredis';
import type { BanPolicy, Limits } from './policy.js';
import { type Decision, type RateLimitStore, type WindowState, windowState } from './store.js';

/**
 * A batch of one subject's requests (ARGV[5] of them), decided in order, atomically, on Redis's clock
 * (`TIME`), so instances whose clocks disagree still share exact windows. For each request in turn: check
 * the ban, check both windows, count in both if admitted, else count the refusal towards a ban. The outcome
 * is that of as many calls of one request each at the same instant; the counters are read once and written
 * once. Every key expires with its window, so Redis holds only live state. KEYS[1] is the
 * subject's prefix, with a hash tag so that all of a subject's keys live in one cluster slot.
 *
 * Replies: {now, minuteEnd, dayEnd}, then five numbers per request: {kind (1 allowed, 2 limited,
 * 3 banned), minuteCount, dayCount, retryAt or bannedUntil (0 when allowed), banStarted}.
 */
const HIT = `
local prefix = KEYS[1]
local perMinute, perDay = tonumber(ARGV[1]), tonumber(ARGV[2])
local banAfter, banMs = tonumber(ARGV[3]), tonumber(ARGV[4])
local requests = tonumber(ARGV[5])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local minuteStart = now - (now % 60000)
local dayStart = now - (now % 86400000)
local minuteEnd, dayEnd = minuteStart + 60000, dayStart + 86400000
local minuteKey, dayKey = prefix .. ':m:' .. minuteStart, prefix .. ':d:' .. dayStart
local refusedMinuteKey, refusedDayKey = prefix .. ':rm:' .. minuteStart, prefix .. ':rd:' .. dayStart
local banKey = prefix .. ':ban'
local minute = tonumber(redis.call('GET', minuteKey) or '0')
local day = tonumber(redis.call('GET', dayKey) or '0')
local bannedUntil = tonumber(redis.call('GET', banKey) or '0')
-- Refusals in the current windows: read at the first refusal; what this call adds is written at the end.
local refusedMinute, refusedDay
local admitted, addedRefusedMinute, addedRefusedDay = 0, 0, 0
local replies = {now, minuteEnd, dayEnd}
local n = 3
local function reply(kind, at, banStarted)
  replies[n + 1], replies[n + 2], replies[n + 3] = kind, minute, day
  replies[n + 4], replies[n + 5] = at, banStarted
  n = n + 5
end
for _ = 1, requests do
  if bannedUntil > now then
    reply(3, bannedUntil, 0)
  elseif minute < perMinute and day < perDay then
    minute, day, admitted = minute + 1, day + 1, admitted + 1
    reply(1, 0, 0)
  else
    if refusedMinute == nil then
      refusedMinute = tonumber(redis.call('GET', refusedMinuteKey) or '0')
      refusedDay = tonumber(redis.call('GET', refusedDayKey) or '0')
    end
    local refused = 0
    if minute >= perMinute then
      refusedMinute, addedRefusedMinute = refusedMinute + 1, addedRefusedMinute + 1
      refused = refusedMinute
    end
    local retryAt = minuteEnd
    if day >= perDay then
      refusedDay, addedRefusedDay = refusedDay + 1, addedRefusedDay + 1
      refused = math.max(refused, refusedDay)
      retryAt = dayEnd
    end
    local banStarted = 0
    if banAfter > 0 and refused >= banAfter then
      bannedUntil = now + banMs
      redis.call('SET', banKey, bannedUntil, 'PX', banMs)
      redis.call('DEL', refusedMinuteKey, refusedDayKey)
      refusedMinute, refusedDay, addedRefusedMinute, addedRefusedDay = 0, 0, 0, 0
      banStarted = 1
    end
    reply(2, retryAt, banStarted)
  end
end
local function add(key, amount, expireAt)
  if amount > 0 and redis.call('INCRBY', key, amount) == amount then redis.call('PEXPIREAT', key, expireAt) end
end
add(minuteKey, admitted, minuteEnd + 1000)
add(dayKey, admitted, dayEnd + 1000)
add(refusedMinuteKey, addedRefusedMinute, minuteEnd + 1000)
add(refusedDayKey, addedRefusedDay, dayEnd + 1000)
return replies
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

interface PipelineWithScripts extends ChainableCommander {
  /** Replies with a number[] (see HIT). */
  petstoreHit(
    prefix: string,
    perMinute: number,
    perDay: number,
    banAfter: number,
    banMs: number,
    requests: number,
  ): this;
}

interface RedisWithScripts extends Redis {
  pipeline(): PipelineWithScripts;
  petstoreUnban(prefix: string): Promise<number>;
  petstorePeek(prefix: string): Promise<[number, number, number, number, number, number, number]>;
}

/** A ban this instance already knows of: refused without a round trip until it ends. */
interface KnownBan {
  until: number;
  minute: WindowState;
  day: WindowState;
}

/** The requests of one subject, under one set of limits, waiting for the next script call. */
interface Batch {
  subject: string;
  limits: Limits;
  ban: BanPolicy | null;
  waiting: Array<{ resolve(decision: Decision): void; reject(error: unknown): void }>;
}

/**
 * The most requests one script call decides: Redis runs nothing else while a script runs, so a flood of one
 * key is decided in slices (each a fraction of a millisecond), not in one long call.
 */
const MAX_BATCH = 1_000;

/** Fails every request of a batch (promises already settled ignore it). */
function failAll(batch: Batch, error: unknown): void {
  for (const waiting of batch.waiting) waiting.reject(error);
}

/** Which batch a request joins: its subject's, unless that batch was opened under other limits (rare). */
function sameTerms(batch: Batch, limits: Limits, ban: BanPolicy | null): boolean {
  return (
    batch.limits.perMinute === limits.perMinute &&
    batch.limits.perDay === limits.perDay &&
    batch.ban?.after === ban?.after &&
    batch.ban?.durationMs === ban?.durationMs
  );
}

/**
 * The shared store of a fleet: counters and bans in Redis, exact across instances. Commands fail fast when
 * Redis is unreachable (no offline queue): the failure policy decides at once when the connection is down,
 * and within two command timeouts (the batch out, then the request's own) when Redis stops answering.
 *
 * Requests are decided in batches: those that arrive while a batch is out (or, when none is, within the
 * current event-loop turn) leave together in one write, as one script call per subject (per MAX_BATCH
 * requests of it). A busy instance thus pays one round trip per batch and one script call per key, not one
 * of each per request.
 */
/**
 * ioredis is loaded when a Redis store is made, not with this module: the command line's commands never count
 * requests, and loading it was a fifth of a second of each (0.2 s of CPU here, of about 0.65 s for
 * `petstore keys create`).
 */
const loadIoredis = () => createRequire(import.meta.url)('ioredis') as typeof import('ioredis');

export class RedisRateLimitStore implements RateLimitStore {
  readonly #redis: RedisWithScripts;
  readonly #prefix: string;
  readonly #bans = new Map<string, KnownBan>();
  /** Requests waiting for the next batch, by subject (and limits, in the rare case they differ). */
  #queued = new Map<string, Batch>();
  /** Batches that reached MAX_BATCH requests, in the order they filled. */
  #full: Batch[] = [];
  #flushScheduled = false;
  #batchOut = false;
  /** Redis's clock minus ours, from the last reply: lets a known ban end on Redis's time, not ours. */
  #offset = 0;

  constructor(options: { url: string; keyPrefix?: string; commandTimeoutMs?: number }) {
    this.#prefix = options.keyPrefix ?? 'petstore:rl:';
    this.#redis = new (loadIoredis().Redis)(options.url, {
      // Peeks and unbans of one event-loop turn leave in one write and come back in one read.
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

  hit(subject: string, limits: Limits, _now: number, ban: BanPolicy | null): Promise<Decision> {
    const known = this.#bans.get(subject);
    if (known !== undefined) {
      const now = Date.now() + this.#offset;
      if (known.until > now)
        return Promise.resolve({
          kind: 'banned',
          minute: known.minute,
          day: known.day,
          until: known.until,
          now,
        });
      this.#bans.delete(subject);
    }
    return new Promise((resolve, reject) => {
      let key = subject;
      let batch = this.#queued.get(key);
      if (batch !== undefined && !sameTerms(batch, limits, ban)) {
        // Keys of one budget under different limits (a reload between two requests): a batch of its own.
        key = `${subject} ${limits.perMinute} ${limits.perDay} ${ban?.after} ${ban?.durationMs}`;
        batch = this.#queued.get(key);
      }
      if (batch === undefined) {
        batch = { subject, limits, ban, waiting: [] };
        this.#queued.set(key, batch);
      }
      batch.waiting.push({ resolve, reject });
      if (batch.waiting.length === MAX_BATCH) {
        // Full: it leaves as it is with the next flush, and the subject's next requests open another.
        this.#full.push(batch);
        this.#queued.delete(key);
      }
      if (!this.#flushScheduled && !this.#batchOut) {
        this.#flushScheduled = true;
        // After the turn's I/O callbacks, so every request read in this turn joins the batch.
        setImmediate(() => this.#flush());
      }
    });
  }

  /** Sends what is queued as one pipeline, unless a batch is out: its answer sends the next one. */
  #flush(): void {
    this.#flushScheduled = false;
    if (this.#batchOut || (this.#full.length === 0 && this.#queued.size === 0)) return;
    // Full batches first: they hold a subject's earlier requests.
    const batches = [...this.#full, ...this.#queued.values()];
    this.#full = [];
    this.#queued = new Map();
    this.#batchOut = true;
    const pipeline = this.#redis.pipeline();
    for (const { subject, limits, ban, waiting } of batches) {
      pipeline.petstoreHit(
        `${this.#prefix}{${subject}}`,
        limits.perMinute,
        limits.perDay,
        ban?.after ?? 0,
        ban?.durationMs ?? 0,
        waiting.length,
      );
    }
    pipeline.exec().then(
      (results) => {
        this.#batchOut = false;
        batches.forEach((batch, i) => {
          const [error, replies] = results?.[i] ?? [new Error('Redis returned no reply for a batch')];
          if (error) failAll(batch, error);
          else {
            // A reply of another shape fails its own batch only, never the store.
            try {
              this.#settle(batch, replies as number[]);
            } catch (failure) {
              failAll(batch, failure);
            }
          }
        });
        this.#flush();
      },
      (error: unknown) => {
        this.#batchOut = false;
        for (const batch of batches) failAll(batch, error);
        this.#flush();
      },
    );
  }

  /** Resolves each request of the batch with its decision; throws on a reply that is not HIT's. */
  #settle({ subject, limits, waiting }: Batch, replies: number[]): void {
    if (!Array.isArray(replies) || replies.length !== 3 + waiting.length * 5) {
      throw new Error(`Redis answered a batch of ${waiting.length} with a reply of another shape`);
    }
    const [now = 0, minuteEnd = 0, dayEnd = 0] = replies;
    this.#offset = now - Date.now();
    for (let i = 0; i < waiting.length; i += 1) {
      const at = 3 + i * 5;
      const kind = replies[at];
      const minute = windowState(limits.perMinute, replies[at + 1] ?? 0, minuteEnd);
      const day = windowState(limits.perDay, replies[at + 2] ?? 0, dayEnd);
      const until = replies[at + 3] ?? 0;
      let decision: Decision;
      if (kind === 1) decision = { kind: 'allowed', minute, day, now };
      else if (kind === 3) {
        this.#bans.set(subject, { until, minute, day });
        decision = { kind: 'banned', minute, day, until, now };
      } else
        decision = { kind: 'limited', minute, day, retryAt: until, banStarted: replies[at + 4] === 1, now };
      waiting[i]?.resolve(decision);
    }
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
