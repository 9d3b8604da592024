import { type Logger, pino } from 'pino';
import { BatchedDestination, type LineEncoder } from './batched-destination.js';

export type { Logger } from 'pino';

/**
 * Paths pino removes before a line is written: credentials never reach a log, whatever logs them.
 * Request bodies are never logged in the first place (request logging is off; errors log no body).
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'key',
  '*.key',
];

/**
 * Creates the JSON logger of one process, writing to `destination` or else to stdout asynchronously, in
 * batches (a line per request must not wait for the terminal or pipe); what is buffered is written out when
 * the process exits, a crash included.
 */
export function createLogger(options: { level: string; destination?: NodeJS.WritableStream }): Logger {
  return pino(
    { level: options.level, redact: { paths: REDACT, censor: '[redacted]' }, base: { pid: process.pid } },
    options.destination ?? new BatchedDestination(1),
  );
}

/**
 * How a writer that encodes its own lines (the access log) writes them among the logger's: `write(maxBytes,
 * encode)` has `encode` put a line of at most `maxBytes` into the logger's destination. `opening` and
 * `bindings` are the parts that make it look like the logger's own line at `level`: `{"level":30,"time":`
 * before the time, then the logger's bindings (`,"pid":…`).
 */
export function ownLines(
  logger: Logger,
  level: pino.Level,
): { write: (maxBytes: number, encode: LineEncoder) => void; opening: string; bindings: string } {
  const internals = logger as unknown as Record<symbol, unknown>;
  const destination = internals[pino.symbols.streamSym];
  const opening = `{"level":${logger.levels.values[level]},"time":`;
  const bindings = internals[pino.symbols.chindingsSym] as string;
  if (destination instanceof BatchedDestination) {
    return { write: (maxBytes, encode) => destination.writeEncoded(maxBytes, encode), opening, bindings };
  }
  // Any other destination (a test's capture) is given each line as a string.
  let scratch = Buffer.alloc(0);
  const write = (maxBytes: number, encode: LineEncoder) => {
    if (scratch.length < maxBytes) scratch = Buffer.allocUnsafe(maxBytes);
    (destination as NodeJS.WritableStream).write(scratch.toString('utf8', 0, encode(scratch, 0)));
  };
  return { write, opening, bindings };
}

/**
 * A connection URL fit to print (a log line, an error, `petstore config`): its password, if any, written
 * `***`. Something that does not parse as a URL is not shown at all.
 */
export function printableUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(not a URL)';
  }
}
export { createOutageLog, OUTAGE_REMINDER_MS, type OutageLog, warnUnlessOutage } from './outage.js';
export { holdsCredential, redactCredentials } from './redact.js';
