import { type Logger, pino } from 'pino';
import { BatchedDestination } from './batched-destination.js';

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
