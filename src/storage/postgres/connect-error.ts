import { printableUrl } from '../../log/index.js';
import { StorageOpenError } from '../types.js';

/** The host and port a URL names, as `host:port` (PostgreSQL's default port when it names none). */
export function addressOf(url: URL): string {
  return `${url.hostname || 'localhost'}:${url.port || '5432'}`;
}

/** The database a PostgreSQL URL names. */
export function databaseOf(url: URL): string {
  return decodeURIComponent(url.pathname.slice(1));
}

/**
 * What went wrong opening PostgreSQL at `url`, in words an operator can act on, from the driver's error:
 * its socket error code, its SQLSTATE (PostgreSQL appendix A) or its own text. Undefined for an error of
 * another kind, which is passed on as it is.
 */
function problemOf(error: unknown, url: URL): string | undefined {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const address = addressOf(url);
  const user = decodeURIComponent(url.username) || 'the default user';
  switch (code) {
    case 'ECONNREFUSED':
      return `nothing accepts connections at ${address}: check that PostgreSQL runs there and listens on that port`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host ${url.hostname} was not found: check its name`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${address} cannot be reached: check the address and the network or firewall between`;
    case '28P01':
      return `PostgreSQL refused the password of ${user}: check the password in DATABASE_URL`;
    case '28000':
      // "role … does not exist", or no pg_hba.conf line lets this user in from here.
      return `PostgreSQL refused ${user}: ${message}; check the user in DATABASE_URL and pg_hba.conf`;
    case '3D000':
      return `the database ${databaseOf(url)} does not exist at ${address}: create it with 'petstore migrate' (or createdb ${databaseOf(url)})`;
    case '53300':
      return `PostgreSQL at ${address} has no connection left (too many clients): check max_connections and DATABASE_POOL_SIZE`;
  }
  if (/timeout exceeded when trying to connect/.test(message)) {
    return `PostgreSQL at ${address} did not answer within 3 s: check that it runs and is not overloaded`;
  }
  if (/Connection terminated/.test(message)) {
    return `PostgreSQL at ${address} closed the connection at once: check its log`;
  }
  return undefined;
}

/**
 * Why PostgreSQL at `url` could not be used, in words, for the log line of an outage: what `connectionError`
 * would say, or the driver's own message (a connection lost mid-query, a query that timed out).
 */
export function unavailableReason(error: unknown, url: string): string {
  let problem: string | undefined;
  try {
    problem = problemOf(error, new URL(url));
  } catch {
    problem = undefined;
  }
  return problem ?? (error instanceof Error ? error.message : String(error));
}

/**
 * The error to stop a start with when PostgreSQL could not be opened: one line naming DATABASE_URL (its
 * password hidden), what failed and what to check, or the error itself when it is not a connection's.
 */
export function connectionError(error: unknown, url: string): unknown {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return error;
  }
  const problem = problemOf(error, parsed);
  return problem === undefined
    ? error
    : new StorageOpenError(`could not open DATABASE_URL ${printableUrl(url)}: ${problem}`, { cause: error });
}
