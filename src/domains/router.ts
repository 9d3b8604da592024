import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sendError } from '../http/index.js';
import { hostOf } from './hosts.js';
import type { DomainIndex } from './registry.js';

/** The published reference: the paths a custom domain exists for. */
function isReferencePath(path: string): boolean {
  return (
    path === '/openapi.json' ||
    path === '/admin/openapi.json' ||
    path === '/docs' ||
    path.startsWith('/docs/')
  );
}

/**
 * Whether a request asks for the reference: by the route that matched (so `/%64ocs` and absolute-form targets,
 * which route to `/docs`, count) or by its path (so unknown paths under `/docs/` count too).
 */
function isReferenceRequest(request: FastifyRequest): boolean {
  return isReferencePath(request.routeOptions.url ?? '') || isReferencePath(request.url.split('?')[0] ?? '');
}

/** The path and query of a request target, also when a client sent the absolute form (RFC 9112 3.2.2). */
function pathAndQuery(url: string): string {
  if (url.startsWith('/')) return url;
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return '/';
  }
}

/**
 * The Host rules of custom domains, before anything else answers:
 * - a domain that redirects gets its status to `https://<to><path and query>`, on every path;
 * - on the reference (`/docs*`, `/openapi.json`), a Host that is neither a domain that serves it, nor one of
 *   the service's own names gets 421 (RFC 9110 section 15.5.20): it was misdirected here. The API under
 *   `/v1`, health checks and operator routes keep answering by any name, as load balancers and fleets call
 *   instances by addresses no configuration lists.
 * Without domains no rule applies. Every lookup is in memory (`DomainRegistry`).
 */
export function registerDomainRouting(
  app: FastifyInstance,
  options: { current: () => DomainIndex; ownHosts: ReadonlySet<string> },
): void {
  const { current, ownHosts } = options;
  app.addHook('onRequest', (request, reply, done) => {
    const domains = current();
    if (domains.size === 0) return done();
    // Fastify's `host` is the Host header, or X-Forwarded-Host when the proxy is trusted.
    const host = hostOf(request.host);
    if (host === undefined) return done();
    const domain = domains.get(host);
    if (domain?.redirectTo != null) {
      reply
        .code(domain.redirectStatus ?? 301)
        .header('location', `https://${domain.redirectTo}${pathAndQuery(request.url)}`)
        .send();
      return;
    }
    if (domain !== undefined || ownHosts.has(host) || !isReferenceRequest(request)) return done();
    const shown = host.length > 100 ? `${host.slice(0, 100)}…` : host;
    sendError(
      request,
      reply,
      'misdirected_request',
      `This service does not publish its reference at ${shown}: the Host is not a configured domain`,
    );
  });
}
