import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** `performance.now()` when the request arrived: the start of its duration in the log and the metrics. */
    receivedAt: number;
  }
}

/** The media type of every JSON answer. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * The headers of every answer besides its `X-Request-Id`: no MIME sniffing, and nothing kept by any cache
 * (an answer that may be kept, the category list, says so itself). The one place they are written down:
 * the hook below, Fastify's own early errors and the answers to requests Node refused all use it.
 */
export const STANDARD_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

/**
 * Notes when each request arrived, and puts the standard headers and the request id on every answer before
 * anything answers it; while the
 * server drains, also `Connection: close`, so keep-alive clients reconnect (to another instance).
 */
export function registerStandardHeaders(app: FastifyInstance): void {
  let closing = false;
  app.decorateRequest('receivedAt', 0);
  app.addHook('onRequest', (request, reply, done) => {
    request.receivedAt = performance.now();
    reply.header('x-request-id', request.id);
    // One by one from the constant: this runs on every request, and makes no object.
    for (const name in STANDARD_HEADERS) reply.header(name, STANDARD_HEADERS[name]);
    if (closing) reply.header('connection', 'close');
    done();
  });
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
}

/**
 * Whether an `If-None-Match` header matches the current entity tag (RFC 9110 section 13.1.2): `*` matches
 * any, otherwise any listed tag matches by weak comparison (the `W/` prefix is ignored).
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header === etag) return true;
  for (const candidate of header.split(',')) {
    const tag = candidate.trim();
    if (tag === '*') return true;
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}
