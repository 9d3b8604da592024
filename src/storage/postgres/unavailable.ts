import { UnavailableError } from '../../errors/index.js';

/** Socket errors that mean PostgreSQL cannot be reached now. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that is going away or cannot take us (PostgreSQL appendix A): class 08 (connection
 * exception), 57P01-57P03 (shut down, crashed, starting up), 53300 (too many connections).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[1-3]|53300)$/;

/** node-postgres's own words for a connection lost, never made, or a query that timed out. */
const DRIVER_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|is not queryable/;

/** Whether an error means the database is unreachable (or unresponsive) rather than the request at fault. */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.test(code))) return true;
  return DRIVER_MESSAGES.test(error.message);
}

/** Told of every call: whether the database answered, or could not be reached and why (an `OutageLog`). */
export interface Availability {
  /** As a call starts: what to hand `failed` (see `OutageLog.begin`). */
  begin(): number;
  failed(error: unknown, begun: number): void;
  succeeded(): void;
}

/**
 * `target` with every method's failures to reach the database turned into `UnavailableError`, which the
 * API answers 503 `service_unavailable` (with `Retry-After`) instead of a 500. Other errors pass as they are.
 * `availability` hears of each call that reached the database and each that could not.
 */
export function reportingUnavailable<T extends object>(target: T, availability?: Availability): T {
  const wrapped = { ...target } as Record<string, unknown>;
  for (const [name, value] of Object.entries(target)) {
    if (typeof value !== 'function') continue;
    wrapped[name] = async (...args: unknown[]) => {
      const begun = availability?.begin() ?? 0;
      try {
        const result = await (value as (...args: unknown[]) => Promise<unknown>).apply(target, args);
        availability?.succeeded();
        return result;
      } catch (error) {
        if (isUnavailable(error)) {
          availability?.failed(error, begun);
          throw new UnavailableError('The database is unavailable', { cause: error });
        }
        // The database answered, if only to refuse.
        availability?.succeeded();
        throw error;
      }
    };
  }
  return wrapped as T;
}
