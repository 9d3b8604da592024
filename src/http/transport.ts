import { isIP } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';

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

/** An `X-Forwarded-For` entry as an address: `1.2.3.4`, `1.2.3.4:5678`, `::1` or `[::1]:80`; else undefined. */
function forwardedAddress(entry: string): string | undefined {
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(entry);
  const address =
    bracketed?.[1] ?? (/^[\d.]+:\d{1,5}$/.test(entry) ? entry.slice(0, entry.lastIndexOf(':')) : entry);
  return isIP(address) === 0 ? undefined : address;
}

/**
 * The addresses of an `X-Forwarded-For` header that a proxy can have written: its trailing run of IP
 * addresses, up to the first entry that is not one. Proxies append the address of their peer, always an
 * address; anything else was written by a client (a key, a spreadsheet formula), and neither it nor what
 * stands before it is to be believed. Empty when no entry is an address.
 */
export function forwardedAddresses(header: string): string {
  const entries = header.split(',');
  const kept: string[] = [];
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const address = forwardedAddress((entries[index] as string).trim());
    if (address === undefined) break;
    kept.push(address);
  }
  return kept.reverse().join(', ');
}

/**
 * With `TRUST_PROXY` set, keeps only the addresses of `X-Forwarded-For` (see {@link forwardedAddresses})
 * before Fastify reads the client's address from it: the request log, the access log and the anonymous rate
 * limit then only ever see an IP address there.
 */
export function registerForwardedAddresses(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const headers = request.raw.headers;
    const header = headers['x-forwarded-for'];
    if (header !== undefined) {
      const kept = forwardedAddresses(Array.isArray(header) ? header.join(',') : header);
      if (kept === '') delete headers['x-forwarded-for'];
      else if (kept !== header) headers['x-forwarded-for'] = kept;
    }
    done();
  });
}
