import { type Logger, pino } from 'pino';

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
 * The most a single write to stdout carries. sonic-boom appends each line to its last pending chunk and
 * measures that chunk's UTF-8 length again on every line, so the cost of a line grows with the chunk: at
 * the default 16 KiB the access log cost 4.6 us a request on the list, at 2 KiB 3.4 us
 * (`npm run bench:observability`), for one write call per eight lines or so.
 */
const MAX_WRITE = 2048;

/**
 * Creates the JSON logger of one process, writing to `destination` or else to stdout asynchronously (a line
 * per request must not wait for the terminal or pipe); what is buffered is written out when the process
 * exits, a crash included (pino's exit handler).
 */
export function createLogger(options: { level: string; destination?: NodeJS.WritableStream }): Logger {
  return pino(
    { level: options.level, redact: { paths: REDACT, censor: '[redacted]' }, base: { pid: process.pid } },
    options.destination ?? pino.destination({ dest: 1, sync: false, maxWrite: MAX_WRITE }),
  );
}
