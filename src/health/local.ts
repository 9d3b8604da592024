import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { notFound } from '../http/index.js';

/** Whether an address is this machine's loopback (IPv4, IPv6, or IPv4 mapped into IPv6). */
function isLoopbackAddress(address: string | undefined): boolean {
  return (
    address !== undefined &&
    (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'))
  );
}

/**
 * Whether a request comes from this machine and not through a proxy: the socket's address (never
 * `X-Forwarded-For`) is loopback and no forwarding header is present. A proxy on this host makes every
 * client look local, so a forwarded request is never local.
 */
export function isLocalRequest(request: FastifyRequest): boolean {
  const forwarded = request.headers['x-forwarded-for'] ?? request.headers.forwarded;
  return forwarded === undefined && isLoopbackAddress(request.socket.remoteAddress);
}

/**
 * The guard of the routes for this machine's operators (metrics, the TLS ask check): anyone else gets the
 * 404 of a path that does not exist, so the route is not even revealed.
 */
export const localOnly: onRequestHookHandler = (request: FastifyRequest, reply: FastifyReply, done) => {
  if (isLocalRequest(request)) done();
  else notFound(request, reply);
};
