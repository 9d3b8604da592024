import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { holdsCredential } from '../log/index.js';

/**
 * A client's `X-Request-Id` is echoed only when it is sane: short, of characters that cannot break a header
 * or a log line, and holding nothing shaped like a credential (a key sent there by mistake would reach the
 * access log, traces and the request log, whose readers do not treat it as secret). Anything else is
 * replaced by a generated id.
 */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** Chooses the id of a request (DESIGN.md section 3, "Request ids"). */
export function requestIdFor(request: IncomingMessage): string {
  const sent = request.headers['x-request-id'];
  // The credential check only for an id that can hold one: every credential's prefix has a `_`.
  if (
    typeof sent === 'string' &&
    SANE_REQUEST_ID.test(sent) &&
    !(sent.includes('_') && holdsCredential(sent))
  )
    return sent;
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
