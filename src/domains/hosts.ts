import { isIP } from 'node:net';
import { normalizeDomain } from './config.js';

/**
 * The host of a `Host` header value, without its port or the trailing dot, in lower case: `Docs.Example.com.:443`
 * gives `docs.example.com`, `[::1]:8080` gives `[::1]`. Undefined when there is no host.
 */
export function hostOf(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return end === -1 ? value : value.slice(0, end + 1);
  }
  const colon = value.indexOf(':');
  // More than one colon without brackets is a bare IPv6 address (not valid in Host, but not a port either).
  const host = colon === -1 || value.indexOf(':', colon + 1) !== -1 ? value : value.slice(0, colon);
  return normalizeDomain(host) || undefined;
}

/** An address or name as it appears in a `Host` header: IPv6 literals in brackets. */
function asHost(name: string): string {
  const lower = name.toLowerCase();
  return isIP(lower) === 6 ? `[${lower}]` : lower;
}

/**
 * The names this service always answers to, whatever the domains say: loopback, the address it binds, and
 * the hosts of its public production and staging URLs (so health checks and the API's own URLs keep working).
 */
export function ownHosts(options: {
  host: string;
  publicUrls: { production: string | undefined; staging: string | undefined };
}): Set<string> {
  const hosts = new Set(['localhost', '127.0.0.1', '[::1]', asHost(options.host)]);
  for (const url of [options.publicUrls.production, options.publicUrls.staging])
    if (url !== undefined) hosts.add(new URL(url).hostname);
  return hosts;
}
