import type { BanPolicy, Limits } from './policy.js';
import { type Decision, type RateLimitStore, windowState } from './store.js';
import { DAY_MS, MINUTE_MS, windowStart } from './windows.js';

interface Entry {
  minuteStart: number;
  minuteCount: number;
  /** Requests refused in this minute, towards a ban. */
  minuteRefused: number;
  dayStart: number;
  dayCount: number;
  dayRefused: number;
  bannedUntil: number;
}

/**
 * The in-process store: exact for one instance, since a `hit` runs to completion on the event loop. An entry
 * lives as long as its day counter matters; entries of past days are swept, so memory follows the number of
 * subjects active today, not all that were ever seen.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  #lastSweep = 0;

  /**
   * `maxEntries` bounds memory whatever clients do: past it, the subject first seen longest ago is forgotten
   * (its counters start again), a better failure than running out of memory.
   */
  constructor(options: { maxEntries?: number } = {}) {
    this.#maxEntries = options.maxEntries ?? 500_000;
  }

  hit(subject: string, limits: Limits, now: number, ban: BanPolicy | null): Decision {
    this.#sweep(now);
    const minuteStart = windowStart(now, MINUTE_MS);
    const dayStart = windowStart(now, DAY_MS);
    let entry = this.#entries.get(subject);
    if (entry === undefined) {
      entry = {
        minuteStart,
        minuteCount: 0,
        minuteRefused: 0,
        dayStart,
        dayCount: 0,
        dayRefused: 0,
        bannedUntil: 0,
      };
      if (this.#entries.size >= this.#maxEntries) {
        const oldest = this.#entries.keys().next().value;
        if (oldest !== undefined) this.#entries.delete(oldest);
      }
      this.#entries.set(subject, entry);
    }
    if (entry.minuteStart !== minuteStart) {
      entry.minuteStart = minuteStart;
      entry.minuteCount = 0;
      entry.minuteRefused = 0;
    }
    if (entry.dayStart !== dayStart) {
      entry.dayStart = dayStart;
      entry.dayCount = 0;
      entry.dayRefused = 0;
    }
    const minuteEnd = minuteStart + MINUTE_MS;
    const dayEnd = dayStart + DAY_MS;

    if (entry.bannedUntil > now) {
      return {
        kind: 'banned',
        minute: windowState(limits.perMinute, entry.minuteCount, minuteEnd),
        day: windowState(limits.perDay, entry.dayCount, dayEnd),
        until: entry.bannedUntil,
        now,
      };
    }

    const minuteFull = entry.minuteCount >= limits.perMinute;
    const dayFull = entry.dayCount >= limits.perDay;
    if (!minuteFull && !dayFull) {
      entry.minuteCount += 1;
      entry.dayCount += 1;
      return {
        kind: 'allowed',
        minute: windowState(limits.perMinute, entry.minuteCount, minuteEnd),
        day: windowState(limits.perDay, entry.dayCount, dayEnd),
        now,
      };
    }

    if (minuteFull) entry.minuteRefused += 1;
    if (dayFull) entry.dayRefused += 1;
    let banStarted = false;
    if (ban !== null && Math.max(entry.minuteRefused, entry.dayRefused) >= ban.after) {
      entry.bannedUntil = now + ban.durationMs;
      entry.minuteRefused = 0;
      entry.dayRefused = 0;
      banStarted = true;
    }
    return {
      kind: 'limited',
      minute: windowState(limits.perMinute, entry.minuteCount, minuteEnd),
      day: windowState(limits.perDay, entry.dayCount, dayEnd),
      retryAt: dayFull ? dayEnd : minuteEnd,
      banStarted,
      now,
    };
  }

  peek(subject: string, limits: Limits, now: number): Decision {
    const minuteStart = windowStart(now, MINUTE_MS);
    const dayStart = windowStart(now, DAY_MS);
    const entry = this.#entries.get(subject);
    // A window that has moved on since the subject's last request holds nothing yet.
    const minuteCount = entry?.minuteStart === minuteStart ? entry.minuteCount : 0;
    const dayCount = entry?.dayStart === dayStart ? entry.dayCount : 0;
    const minute = windowState(limits.perMinute, minuteCount, minuteStart + MINUTE_MS);
    const day = windowState(limits.perDay, dayCount, dayStart + DAY_MS);
    if (entry !== undefined && entry.bannedUntil > now) {
      return { kind: 'banned', minute, day, until: entry.bannedUntil, now };
    }
    return { kind: 'allowed', minute, day, now };
  }

  resumeDay(subject: string, used: number, now: number): void {
    const dayStart = windowStart(now, DAY_MS);
    const entry = this.#entries.get(subject);
    if (entry === undefined) {
      this.#entries.set(subject, {
        minuteStart: windowStart(now, MINUTE_MS),
        minuteCount: 0,
        minuteRefused: 0,
        dayStart,
        dayCount: used,
        dayRefused: 0,
        bannedUntil: 0,
      });
    } else {
      if (entry.dayStart !== dayStart) {
        entry.dayStart = dayStart;
        entry.dayCount = 0;
        entry.dayRefused = 0;
      }
      entry.dayCount = Math.max(entry.dayCount, used);
    }
  }

  unban(subject: string): void {
    const entry = this.#entries.get(subject);
    if (entry === undefined) return;
    entry.bannedUntil = 0;
    entry.minuteRefused = 0;
    entry.dayRefused = 0;
  }

  /** How many subjects have state, for tests of the memory bound. */
  get size(): number {
    return this.#entries.size;
  }

  async connect(): Promise<void> {}

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.#entries.clear();
  }

  /** At most once a minute of clock time, drops the entries whose day is over and that are not banned. */
  #sweep(now: number): void {
    if (now - this.#lastSweep < MINUTE_MS) return;
    this.#lastSweep = now;
    const today = windowStart(now, DAY_MS);
    for (const [subject, entry] of this.#entries) {
      if (entry.dayStart < today && entry.bannedUntil <= now) this.#entries.delete(subject);
    }
  }
}
