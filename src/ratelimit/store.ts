import type { BanPolicy, Limits } from './policy.js';

/** One window's state after a request was counted (or refused). */
export interface WindowState {
  limit: number;
  /** Requests left in the window; never below 0. */
  remaining: number;
  /** When the window ends, in epoch milliseconds. */
  resetAt: number;
}

/** A window's state after `used` requests were counted in it. */
export function windowState(limit: number, used: number, resetAt: number): WindowState {
  return { limit, remaining: Math.max(0, limit - used), resetAt };
}

/** `now`: the store's time when it decided (Redis's own clock in Redis), for the headers' arithmetic. */
export type Decision =
  | { kind: 'allowed'; minute: WindowState; day: WindowState; now: number }
  /** `retryAt`: when every exhausted window has reset. `banStarted`: this refusal began a ban. */
  | {
      kind: 'limited';
      minute: WindowState;
      day: WindowState;
      now: number;
      retryAt: number;
      banStarted: boolean;
    }
  | { kind: 'banned'; minute: WindowState; day: WindowState; now: number; until: number };

/**
 * Where counters and bans live: in this process, or in Redis so that every instance shares them. `hit` is
 * one atomic step per request: it checks the ban, checks both windows, and counts the request in both only
 * if it is admitted. A refused request consumes nothing.
 */
export interface RateLimitStore {
  /**
   * `ban` null: this subject is never banned (client addresses). `now` in epoch ms: the instance's clock,
   * which a shared store ignores in favour of its own, so instances with skewed clocks agree on windows.
   */
  hit(subject: string, limits: Limits, now: number, ban: BanPolicy | null): Decision | Promise<Decision>;
  /**
   * The subject's windows and ban, counting nothing: `banned` while a ban lasts, else `allowed` with the
   * windows as they are (a window may have nothing left).
   */
  peek(subject: string, limits: Limits, now: number): Decision | Promise<Decision>;
  /** Lifts a ban and forgets the refusals that led to it. */
  unban(subject: string): void | Promise<void>;
  /**
   * Starts the subject's day window, as of `now`, at `used` requests, unless it holds more already. Only a
   * store that forgets its counts when the process restarts has it (this process's memory): the day's use
   * is read back from storage at start, or every restart would give each key its whole day again.
   */
  resumeDay?(subject: string, used: number, now: number): void;
  /** Resolves once the store is ready to answer (or has tried long enough); called once at start. */
  connect(): Promise<void>;
  /** Resolves when the store can be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
