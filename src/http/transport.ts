import type { FastifyRequest } from 'fastify';

/** Whether an address is this machine's loopback, in IPv4, IPv6 or IPv4-mapped IPv6 form. */
export function isLoopbackAddress(address: string | undefined): boolean {
  return (
    address !== undefined &&
    (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'))
  );
}

/**
 * Whether the browser reached us over HTTPS: directly, through a proxy `TRUST_PROXY` believes (Fastify reads
 * its `X-Forwarded-Proto`), or through a TLS front on this machine (such as the Caddy of docs/production.md),
 * whose `X-Forwarded-Proto` is believed from a loopback peer only.
 */
export function overHttps(request: FastifyRequest): boolean {
  if (request.protocol === 'https') return true;
  return isLoopbackAddress(request.socket.remoteAddress) && request.headers['x-forwarded-proto'] === 'https';
}

/**
 * RFC 6797: a browser that met a page over HTTPS keeps to HTTPS for this host for a year, so a later visit
 * typed as http:// (or a network that rewrites one) cannot strip the TLS from the console's sign-in. Not over
 * plain HTTP, where browsers ignore it, and without `includeSubDomains`: a custom domain's siblings are not
 * ours to bind.
 */
const HSTS = { 'strict-transport-security': 'max-age=31536000' } as const;

/** The `Strict-Transport-Security` header a page sends when the browser reached it over HTTPS, or none. */
export function transportSecurity(request: FastifyRequest): Readonly<Record<string, string>> {
  return overHttps(request) ? HSTS : {};
}
