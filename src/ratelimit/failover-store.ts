import { ApiError } from '../errors/index.js';
import type { Logger } from '../log/index.js';
import type { BanPolicy, Limits } from './policy.js';
import type { Decision, RateLimitStore } from './store.js';

/**
 * The explicit policy for a shared store that cannot be reached (`RATE_LIMIT_FAIL`):
 * - `open`: serve, counting on this instance alone meanwhile (so every answer still has its headers and a
 *   single instance is still limited); each such request is counted, and logged once a second.
 * - `closed`: refuse with 503 `service_unavailable`.
 * Never a 500.
 */
export class FailoverRateLimitStore implements RateLimitStore {
  readonly #primary: RateLimitStore;
  readonly #fallback: RateLimitStore;
  readonly #mode: 'open' | 'closed';
  readonly #logger: Logger;
  readonly #failOpen: { inc(): void };
  #unlogged = 0;
  #lastLog = 0;

  constructor(deps: {
    primary: RateLimitStore;
    fallback: RateLimitStore;
    mode: 'open' | 'closed';
    logger: Logger;
    /** Counts each request served on this instance's limits alone. */
    failOpenCounter: { inc(): void };
  }) {
    this.#primary = deps.primary;
    this.#fallback = deps.fallback;
    this.#mode = deps.mode;
    this.#logger = deps.logger;
    this.#failOpen = deps.failOpenCounter;
  }

  async hit(subject: string, limits: Limits, now: number, ban: BanPolicy | null): Promise<Decision> {
    try {
      return await this.#primary.hit(subject, limits, now, ban);
    } catch (error) {
      this.#report(error, now);
      if (this.#mode === 'closed') {
        throw new ApiError('service_unavailable', 'Rate limiting is unavailable; retry shortly', {
          'retry-after': '1',
        });
      }
      this.#failOpen.inc();
      return this.#fallback.hit(subject, limits, now, ban);
    }
  }

  async peek(subject: string, limits: Limits, now: number): Promise<Decision> {
    try {
      return await this.#primary.peek(subject, limits, now);
    } catch (error) {
      this.#report(error, now);
      if (this.#mode === 'closed') {
        throw new ApiError('service_unavailable', 'Rate limiting is unavailable; retry shortly', {
          'retry-after': '1',
        });
      }
      return this.#fallback.peek(subject, limits, now);
    }
  }

  /** Logs the failure at most once a second, with how many requests it affected since the last line. */
  #report(error: unknown, now: number): void {
    this.#unlogged += 1;
    if (now - this.#lastLog < 1_000) return;
    this.#logger.warn(
      { err: error, requests: this.#unlogged, policy: this.#mode },
      this.#mode === 'open'
        ? "rate-limit store unreachable; serving on this instance's own limits (RATE_LIMIT_FAIL=open)"
        : 'rate-limit store unreachable; refusing with 503 (RATE_LIMIT_FAIL=closed)',
    );
    this.#unlogged = 0;
    this.#lastLog = now;
  }

  /** A store that is down at start is no reason not to start: the policy covers it, as it would later. */
  async connect(): Promise<void> {
    try {
      await this.#primary.connect();
    } catch (error) {
      this.#logger.warn({ err: error, policy: this.#mode }, 'rate-limit store unreachable at start');
    }
  }

  async unban(subject: string): Promise<void> {
    await this.#fallback.unban(subject);
    await this.#primary.unban(subject);
  }

  ping(): Promise<void> {
    return this.#primary.ping();
  }

  async close(): Promise<void> {
    await Promise.all([this.#primary.close(), this.#fallback.close()]);
  }
}
