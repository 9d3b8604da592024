import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * A client's `X-Request-Id` is echoed only when it is sane: short, and of characters that cannot break a
 * header or a log line. Anything else is replaced by a generated id.
 */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** Chooses the id of a request (DESIGN.md section 3, "Request ids"). */
export function requestIdFor(request: IncomingMessage): string {
  const sent = request.headers['x-request-id'];
  if (typeof sent === 'string' && SANE_REQUEST_ID.test(sent)) return sent;
  return newRequestId();
}

/**
 * A fresh request id, for requests that have none: this process's random prefix and a counter. Unique
 * across instances and restarts, like a UUID, at a fraction of its cost on the hot path.
 */
const PROCESS_PREFIX = randomUUID().slice(0, 8);
let sequence = 0;
export function newRequestId(): string {
  sequence += 1;
  return `${PROCESS_PREFIX}-${sequence.toString(36)}`;
}
