import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseTimestamp } from '../clock/index.js';
import { REQUESTS_PAGE } from '../contract/index.js';
import {
  API_PATHS,
  operatorView,
  type RequestFilter,
  type RequestRecord,
  statusRange,
} from '../request-log/index.js';
import { openRequestLogStore, requestLogFile } from '../storage/index.js';
import { parseOptions, UsageError } from './args.js';
import { type Command, REQUESTS_OPTIONS } from './commands.js';
import { parseDuration } from './duration.js';
import { jsonLine, printable } from './output.js';

/** How often `--follow` asks for new rows: each instance writes its rows every 250 ms. */
const FOLLOW_MS = 1_000;
/**
 * How far back `--follow` looks again each time: a row lands up to a flush after it was answered, on another
 * instance later still, so a row older than the newest seen may still be new. Seen ids are kept that long.
 */
const FOLLOW_OVERLAP_MS = 10_000;

const STATUS = /^[1-5](\d\d|xx)$/;
const WHOLE = /^[1-9]\d{0,2}$/;

/**
 * One row for a terminal: time, method, path, status and error code, who asked (a key, an admin token or
 * person, or `no key`), from which address, duration, request id. Who and where are each named, so that an
 * address never reads as a key.
 */
function line(record: RequestRecord): string {
  const who = record.keyId ?? record.actor ?? 'no key';
  const from = record.client === null ? '' : `  from ${record.client}`;
  const error = record.errorCode === null ? '' : `  ${record.errorCode}`;
  return `${new Date(record.at).toISOString()}  ${record.method} ${printable(record.path)}  ${record.status}${error}  ${printable(who)}${printable(from)}  ${record.durationMs} ms  ${printable(record.requestId)}\n`;
}

/** The filter the flags ask for; `--since` a duration back from now, or a time. */
function filterOf(values: {
  key?: string;
  status?: string;
  since?: string;
  id?: string;
  api?: string;
}): RequestFilter {
  const filter: RequestFilter = {};
  if (values.key !== undefined) filter.keyId = values.key;
  if (values.status !== undefined) {
    if (!STATUS.test(values.status)) {
      throw new UsageError(
        `--status takes a status such as 404 or a class such as 4xx (got ${values.status})`,
        'requests',
      );
    }
    filter.status = statusRange(values.status);
  }
  if (values.since !== undefined) {
    const at = parseTimestamp(values.since);
    filter.from = at ?? Date.now() - parseDuration('--since', values.since, 'requests');
  }
  if (values.id !== undefined) filter.requestId = values.id;
  if (values.api !== undefined) {
    if (!Object.hasOwn(API_PATHS, values.api)) {
      throw new UsageError(`--api takes v1 or admin (got ${values.api})`, 'requests');
    }
    filter.api = values.api as keyof typeof API_PATHS;
  }
  return filter;
}

/**
 * `petstore requests`: the request log's rows of a filter, oldest of them first (the newest `--limit`), and
 * with `--follow` every new row as it lands, from any instance, until interrupted. Returns the exit code.
 */
export const requestsCommand: Command = async (args, config, out) => {
  const { values, positionals } = parseOptions(args, REQUESTS_OPTIONS, 'requests');
  if (positionals.length > 0) {
    throw new UsageError(`requests takes no arguments: ${positionals.join(' ')}`, 'requests');
  }
  if (values.limit !== undefined && (!WHOLE.test(values.limit) || Number(values.limit) > REQUESTS_PAGE.max)) {
    throw new UsageError(`--limit must be 1 to ${REQUESTS_PAGE.max} (got ${values.limit})`, 'requests');
  }
  const filter = filterOf(values);
  if (config.requestLog === undefined) {
    throw new Error('the request log is off (REQUEST_LOG=off): no server keeps one to read');
  }
  if (config.storage.kind === 'sqlite' && !existsSync(requestLogFile(config.storage.file))) {
    throw new Error(
      `no request log at ${requestLogFile(config.storage.file)}: a server keeps it beside its database once it answered a request; set DATABASE_URL to the database your server uses`,
    );
  }
  const store = await openRequestLogStore(config.storage);
  const print = (record: RequestRecord) =>
    out.write(values.json === true ? jsonLine(operatorView(record)) : line(record));
  try {
    const limit = values.limit === undefined ? REQUESTS_PAGE.default : Number(values.limit);
    const first = await store.list({ ...filter, limit });
    for (const record of first.reverse()) print(record);
    if (values.follow !== true) {
      if (first.length > 0) return 0;
      // An id asked for and not found is a failure a script can see; an empty filter is an answer.
      if (values.id !== undefined) {
        throw new Error(
          `no request of the kept days has the id ${printable(values.id)} (REQUEST_LOG_DAYS; an id the service made, or one a client sent)`,
        );
      }
      if (values.json !== true) out.write('No requests.\n');
      return 0;
    }
    // Rows seen (a client may send the same request id twice), by when they were answered: forgotten once
    // older than the overlap.
    const rowKey = (record: RequestRecord) => `${record.requestId} ${record.at} ${record.instance}`;
    const seen = new Map<string, number>(first.map((record) => [rowKey(record), record.at]));
    let newest = first.at(-1)?.at ?? Date.now();
    let stopped = false;
    const stop = () => {
      stopped = true;
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    while (!stopped) {
      await sleep(FOLLOW_MS);
      const since = newest - FOLLOW_OVERLAP_MS;
      const rows = await store.list({
        ...filter,
        from: Math.max(filter.from ?? 0, since),
        limit: REQUESTS_PAGE.max * 5,
      });
      for (const record of rows.reverse()) {
        if (seen.has(rowKey(record))) continue;
        seen.set(rowKey(record), record.at);
        newest = Math.max(newest, record.at);
        print(record);
      }
      for (const [id, at] of seen) if (at < since) seen.delete(id);
    }
    return 0;
  } finally {
    await store.close();
  }
};
