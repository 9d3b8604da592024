import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { holdsCredential } from '../log/index.js';

/**
 * A client's `X-Request-Id` is echoed only when it is sane: short, of characters that cannot break a header
 * or a log line, not starting with a character a spreadsheet takes for a formula (`=`, `+`, `-`, `@`: the
 * exports neutralise such cells, and an id must read the same everywhere), and holding nothing shaped like a
 * credential (a key sent there by mistake would reach the access log, traces and the request log, whose
 * readers do not treat it as secret). Anything else is replaced by a generated id.
 */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:/][A-Za-z0-9._:@/+=-]{0,127}$/;

/**
 * The shape of the ids the service makes ({@link newRequestId}), which a client's id may not take: the
 * service's are unique, and support finds a customer's request by the one quoted to them. Were a client free
 * to send `3fa9c2d1-1k7` too, a stranger's request could sit under a customer's id (the counter is easy to
 * guess) and be the one found.
 */
const SERVICE_REQUEST_ID = /^[0-9a-f]{8}-[0-9a-z]{1,11}$/;

/** Whether an id has the shape of the ids the service makes. */
export function isServiceRequestId(id: string): boolean {
  return SERVICE_REQUEST_ID.test(id);
}

/** Chooses the id of a request (DESIGN.md section 3, "Request ids"). */
export function requestIdFor(request: IncomingMessage): string {
  const sent = request.headers['x-request-id'];
  // The credential check only for an id that can hold one: every credential's prefix has a `_`.
  if (
    typeof sent === 'string' &&
    SANE_REQUEST_ID.test(sent) &&
    !SERVICE_REQUEST_ID.test(sent) &&
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
