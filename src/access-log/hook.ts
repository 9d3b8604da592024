import type { FastifyInstance, FastifyRequest } from 'fastify';
import { onAnswer, routeTemplate } from '../http/index.js';
import { type Logger, ownLines } from '../log/index.js';
import {
  MAX_NUMBER_BYTES,
  maxStringBytes,
  writeBytes,
  writeMilliseconds,
  writeNumber,
  writeString,
} from './json-bytes.js';

const json = JSON.stringify;
const bytesOf = (text: string) => Buffer.from(text);

/** The most values of one kind whose parts are kept: past it they start afresh, so months of keys and clients stay bounded. */
const MAX_KEPT = 10_000;

/** `make`, kept for each value it was asked for; past {@link MAX_KEPT} values it starts afresh. */
function kept<V, R>(make: (value: V) => R): (value: V) => R {
  const made = new Map<V, R>();
  return (value) => {
    let result = made.get(value);
    if (result === undefined) {
      if (made.size >= MAX_KEPT) made.clear();
      result = make(value);
      made.set(value, result);
    }
    return result;
  };
}

/** The parts between the line's values that do not repeat. */
const BYTES = bytesOf(',"bytes":');
const TRACE_ID = bytesOf(',"traceId":');
const END = bytesOf(',"msg":"request"}\n');
/** Room for the numbers of a line that are not kept: duration and bytes. */
const NUMBERS_BYTES = 2 * MAX_NUMBER_BYTES;

/**
 * One JSON line per answer (docs/observability.md, "Access log"): request id (`reqId`, as the app's other lines name it),
 * method, route template (never the raw path, which can hold ids and query values), status, duration, body
 * bytes, the key or admin token id (never the key), the client address and, when tracing is on, the trace
 * id. Written at the logger's `info` level, in the shape of its own lines and with its bindings, to its
 * destination, which is asynchronous.
 *
 * The line is encoded here, straight into the destination's batch (json-bytes.ts), and not by
 * `logger.info`: every field is built from values that hold no secret, so it needs none of pino's
 * redaction or serializers, and pino's field-by-field serializer was most of the line's cost, then building
 * the line as a string and encoding it. The parts that repeat (the time within a millisecond, method and
 * route and status, key id, client address) are encoded once and copied.
 */
export function registerAccessLog(
  app: FastifyInstance,
  deps: { logger: Logger; traceId?: ((request: FastifyRequest) => string | undefined) | undefined },
): void {
  const { logger, traceId } = deps;
  // The logger's level is set once, at start: below info, the access log is not wired at all.
  if (!logger.isLevelEnabled('info')) return;
  const { write, opening, bindings } = ownLines(logger, 'info');
  // Everything up to the request id, of which only the time changes, once a millisecond at most.
  let startTime = -1;
  let start = Buffer.alloc(0);
  const startPart = (time: number) => {
    if (time !== startTime) {
      startTime = time;
      start = bytesOf(`${opening}${time}${bindings},"log":"access","reqId":`);
    }
    return start;
  };
  // The parts of a line that repeat from request to request, encoded on their values' first use only.
  const answerParts = kept((route: string | null) =>
    kept((method: string) =>
      kept((status: number) =>
        bytesOf(`,"method":${json(method)},"route":${json(route)},"status":${status},"durationMs":`),
      ),
    ),
  );
  const keyPart = kept((id: string | null) => bytesOf(`,"keyId":${json(id)},"client":`));
  const clientPart = kept((address: string | null) => bytesOf(json(address)));

  onAnswer(app, (request, reply, bytes, elapsedMs) => {
    const id = request.id;
    const head = startPart(Date.now());
    const answer = answerParts(routeTemplate(request) ?? null)(request.method)(reply.statusCode);
    const key = keyPart(request.apiKey?.id ?? request.expiredKey?.id ?? request.admin?.id ?? null);
    // No address once the client has gone (Node forgets a closed socket's peer), though the types say string.
    const client = clientPart((request.ip as string | undefined) ?? null);
    const trace = traceId?.(request);
    const maxBytes =
      head.length +
      maxStringBytes(id) +
      answer.length +
      NUMBERS_BYTES +
      BYTES.length +
      key.length +
      client.length +
      (trace === undefined ? 0 : TRACE_ID.length + maxStringBytes(trace)) +
      END.length;
    write(maxBytes, (buffer, from) => {
      let at = writeBytes(buffer, from, head);
      at = writeString(buffer, at, id);
      at = writeBytes(buffer, at, answer);
      at = writeMilliseconds(buffer, at, elapsedMs);
      at = writeBytes(buffer, at, BYTES);
      at = writeNumber(buffer, at, request.method === 'HEAD' ? 0 : bytes);
      at = writeBytes(buffer, at, key);
      at = writeBytes(buffer, at, client);
      if (trace !== undefined) at = writeString(buffer, writeBytes(buffer, at, TRACE_ID), trace);
      return writeBytes(buffer, at, END);
    });
  });
}
