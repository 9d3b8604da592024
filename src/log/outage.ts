import type { Logger } from 'pino';
import { UnavailableError } from '../errors/index.js';

/** How often a dependency that stays away is mentioned again. */
export const OUTAGE_REMINDER_MS = 30_000;

/**
 * What a process says about one dependency it cannot do without (PostgreSQL, Redis): one line when it goes
 * away, naming it and why (no stack: the cause is outside the process), a reminder at most every
 * `OUTAGE_REMINDER_MS` while it stays away, and one line when it is back. The calls that fail meanwhile say
 * nothing each: 3 a second of stack traces hid what happened.
 */
export interface OutageLog {
  /**
   * Called as a call starts: what to hand `failed` if it fails. A call that was already on its way when the
   * dependency came back (a query that times out after a later one succeeded) belongs to the outage that
   * ended, and must not start another. Cheap: the request path calls it.
   */
  begin(): number;
  /** A call failed because the dependency cannot be reached; `reason` says why, in words. */
  failed(reason: string, begun?: number): void;
  /** A call succeeded. Cheap: the request path calls it. */
  succeeded(): void;
}

export function createOutageLog(deps: {
  logger: Logger;
  /** `PostgreSQL`, `Redis`. */
  dependency: string;
  /** Where it is expected, with no password: `127.0.0.1:5432/petstore`. */
  address: string;
  /** What the process does while it is away, if anything is to be said (`serving on … limits`). */
  meanwhile?: string;
  now?: () => number;
}): OutageLog {
  const { logger, dependency, address } = deps;
  const meanwhile = deps.meanwhile === undefined ? '' : `; ${deps.meanwhile}`;
  const now = deps.now ?? Date.now;
  let downSince: number | undefined;
  let lastSaid = 0;
  let failures = 0;
  /** How many outages have ended: a call begun before the last end is of an outage already said. */
  let recoveries = 0;
  return {
    begin: () => recoveries,
    failed(reason, begun = recoveries) {
      if (begun < recoveries) return;
      const at = now();
      failures += 1;
      if (downSince === undefined) {
        downSince = at;
        lastSaid = at;
        failures = 1;
        logger.warn(
          { dependency, address, reason },
          `${dependency} at ${address} is unreachable: ${reason}${meanwhile}`,
        );
      } else if (at - lastSaid >= OUTAGE_REMINDER_MS) {
        lastSaid = at;
        logger.warn(
          { dependency, address, reason, downForSeconds: Math.round((at - downSince) / 1000), failures },
          `${dependency} at ${address} is still unreachable: ${reason}${meanwhile}`,
        );
      }
    },
    succeeded() {
      if (downSince === undefined) return;
      const at = now();
      logger.info(
        { dependency, address, downForSeconds: Math.round((at - downSince) / 1000), failures },
        `${dependency} at ${address} is reachable again`,
      );
      downSince = undefined;
      recoveries += 1;
    },
  };
}

/**
 * Logs the failure of a task of the process's own (a poll, a flush) at warn, unless a dependency being away
 * caused it (`UnavailableError`): that is the outage log's to say, once, not every poll's.
 */
export function warnUnlessOutage(
  logger: Pick<Logger, 'warn'> | { warn(fields: object, message: string): void },
  error: unknown,
  message: string,
  fields: Record<string, unknown> = {},
): void {
  if (error instanceof UnavailableError) return;
  logger.warn({ err: error, ...fields }, message);
}
