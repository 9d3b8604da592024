import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { isLoopbackAddress, notFound } from '../http/index.js';

/**
 * Headers a proxy adds to say it forwards a request, and for whom: RFC 7239's `Forwarded`, RFC 9110's `Via`,
 * the de facto `X-Forwarded-*` family and the client-address headers of common proxies and CDNs (nginx's
 * `X-Real-IP`, Akamai's and Cloudflare's `True-Client-IP`, `CF-Connecting-IP`, `X-Client-IP`, Fastly's
 * `Fastly-Client-IP`, `X-Cluster-Client-IP`).
 */
const FORWARDING_HEADERS = new Set([
  'forwarded',
  'via',
  'x-real-ip',
  'true-client-ip',
  'cf-connecting-ip',
  'x-client-ip',
  'fastly-client-ip',
  'x-cluster-client-ip',
]);

/** Whether a request carries a header that a proxy adds when it forwards one. */
function isForwarded(request: FastifyRequest): boolean {
  for (const name in request.headers) {
    if (FORWARDING_HEADERS.has(name) || name.startsWith('x-forwarded-')) return true;
  }
  return false;
}

/**
 * Whether a request comes from this machine and not through a proxy: the socket's address (never a
 * forwarding header) is loopback, and no header a proxy adds is present (`FORWARDING_HEADERS`). A proxy on
 * this host makes every client look local, so a forwarded request is never local, whatever `TRUST_PROXY`
 * says; a proxy that adds none of these must be told to (docs/observability.md, "Metrics").
 */
export function isLocalRequest(request: FastifyRequest): boolean {
  return isLoopbackAddress(request.socket.remoteAddress) && !isForwarded(request);
}

/**
 * The guard of the routes for this machine's operators (metrics, the TLS ask check): anyone else gets the
 * 404 of a path that does not exist, so the route is not even revealed.
 */
export const localOnly: onRequestHookHandler = (request: FastifyRequest, reply: FastifyReply, done) => {
  if (isLocalRequest(request)) done();
  else notFound(request, reply);
};
