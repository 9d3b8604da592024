import type { FastifyInstance, preValidationHookHandler } from 'fastify';
import { IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_KEY_PATTERN } from '../contract/index.js';
import { hookList, type RouteConfig, sendError } from '../http/index.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's `Idempotency-Key`, or null when it sent none (or is not a POST). */
    idempotencyKey: string | null;
  }
}

const PRINTABLE = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/**
 * The key of an `Idempotency-Key` header value, or undefined when it is not one: 1 to 255 printable ASCII
 * characters. The IETF draft sends the key as a structured-field string (`"…"`); the quotes are not part of it.
 */
function parseIdempotencyKey(value: string): string | undefined {
  const key = value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  return key.length >= 1 && key.length <= IDEMPOTENCY_KEY_MAX && PRINTABLE.test(key) ? key : undefined;
}

/** Reads the header into `request.idempotencyKey`, or refuses a malformed one with 400. */
const readIdempotencyKey: preValidationHookHandler = (request, reply, done) => {
  const header = request.headers['idempotency-key'];
  if (header === undefined) {
    done();
    return;
  }
  // Node joins repeated headers with ", ", which would make two keys one: the field is a single string.
  if ((request.raw.headersDistinct['idempotency-key']?.length ?? 0) > 1) {
    sendError(request, reply, 'validation_failed', 'Idempotency-Key must be sent once');
    return;
  }
  const key = parseIdempotencyKey(header as string);
  if (key === undefined) {
    const message = `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} printable ASCII characters`;
    sendError(request, reply, 'validation_failed', message);
    return;
  }
  request.idempotencyKey = key;
  done();
};

/**
 * Reads `Idempotency-Key` on every POST route registered in the scope after this call; a malformed one is
 * refused with 400 before the body is even validated, so nothing is stored for it. Other routes, the list
 * among them, do not pay for the hook.
 */
export function registerIdempotencyKey(app: FastifyInstance): void {
  app.decorateRequest('idempotencyKey', null);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    // The 405 answers of a path that takes no POST are not POST routes of the contract.
    if (!methods.includes('POST') || (route.config as RouteConfig | undefined)?.methodNotAllowed) return;
    route.preValidation = [readIdempotencyKey, ...hookList(route.preValidation)];
  });
}
