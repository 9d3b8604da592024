import { ApiError, UnavailableError } from '../errors/index.js';
import type { OutageLog } from '../log/index.js';
import type { BanPolicy, Limits } from './policy.js';
import type { Decision, RateLimitStore } from './store.js';

/**
 * Why the shared store (Redis) could not be used, in words rather than its client's (ioredis says "Stream
 * isn't writeable and enableOfflineQueue options is false" for a connection that is down).
 */
export function storeProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  if (code === 'ECONNREFUSED' || /ECONNREFUSED/.test(message)) return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (/Stream isn't writeable|Connection is closed|enableOfflineQueue/.test(message)) return 'not connected';
  // A command in flight when the connection dropped.
  if (/max retries per request/.test(message)) return 'connection lost';
  if (/ETIMEDOUT|timed out|not reachable within|Command timed out/.test(message)) return 'no answer in time';
  return message;
}

/**
 * The explicit policy for a shared store that cannot be reached (`RATE_LIMIT_FAIL`):
 * - `open`: serve, counting on this instance alone meanwhile (so every answer still has its headers and a
 *   single instance is still limited); each such request is counted in the metrics.
 * - `closed`: refuse with 503 `service_unavailable`.
 * Never a 500.
 */
export class FailoverRateLimitStore implements RateLimitStore {
  readonly #primary: RateLimitStore;
  readonly #fallback: RateLimitStore;
  readonly #mode: 'open' | 'closed';
  readonly #outage: OutageLog;
  readonly #failOpen: { inc(): void };

  constructor(deps: {
    primary: RateLimitStore;
    fallback: RateLimitStore;
    mode: 'open' | 'closed';
    /** Says when the shared store goes away and when it is back, not once a request. */
    outage: OutageLog;
    /** Counts each request served on this instance's limits alone. */
    failOpenCounter: { inc(): void };
  }) {
    this.#primary = deps.primary;
    this.#fallback = deps.fallback;
    this.#mode = deps.mode;
    this.#outage = deps.outage;
    this.#failOpen = deps.failOpenCounter;
  }

  async hit(subject: string, limits: Limits, now: number, ban: BanPolicy | null): Promise<Decision> {
    const begun = this.#outage.begin();
    try {
      const decision = await this.#primary.hit(subject, limits, now, ban);
      this.#outage.succeeded();
      return decision;
    } catch (error) {
      this.#primaryFailed(error, begun);
      this.#failOpen.inc();
      return this.#fallback.hit(subject, limits, now, ban);
    }
  }

  async peek(subject: string, limits: Limits, now: number): Promise<Decision> {
    const begun = this.#outage.begin();
    try {
      const decision = await this.#primary.peek(subject, limits, now);
      this.#outage.succeeded();
      return decision;
    } catch (error) {
      this.#primaryFailed(error, begun);
      return this.#fallback.peek(subject, limits, now);
    }
  }

  /**
   * The policy, for a call to the shared store that failed: the outage is logged; `closed` refuses the
   * request, `open` returns and the caller counts on this instance's store.
   */
  #primaryFailed(error: unknown, begun: number): void {
    this.#outage.failed(storeProblem(error), begun);
    if (this.#mode === 'closed') {
      throw new ApiError('service_unavailable', 'Rate limiting is unavailable; retry shortly', {
        'retry-after': '1',
      });
    }
  }

  /** A store that is down at start is no reason not to start: the policy covers it, as it would later. */
  async connect(): Promise<void> {
    try {
      await this.#primary.connect();
    } catch (error) {
      this.#outage.failed(storeProblem(error));
    }
  }

  async unban(subject: string): Promise<void> {
    await this.#fallback.unban(subject);
    await this.#primary.unban(subject);
  }

  async ping(): Promise<void> {
    const begun = this.#outage.begin();
    try {
      await this.#primary.ping();
      this.#outage.succeeded();
    } catch (error) {
      this.#outage.failed(storeProblem(error), begun);
      throw new UnavailableError('Redis is unavailable', { cause: error });
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.#primary.close(), this.#fallback.close()]);
  }
}
