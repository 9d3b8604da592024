import type { FastifyInstance, FastifyRequest } from 'fastify';
import { routeConfig, sendError } from '../http/index.js';
import { hostOf } from './hosts.js';
import type { DomainIndex } from './registry.js';
import { type DomainRecord, SERVED_STATES } from './types.js';

/** Whether `path` is `prefix` or below it. */
const isUnder = (path: string, prefix: string) =>
  path === prefix || (path.startsWith(prefix) && path[prefix.length] === '/');

/** The published reference: the paths a custom domain exists for. */
function isReferencePath(path: string): boolean {
  return path === '/openapi.json' || path === '/admin/openapi.json' || isUnder(path, '/docs');
}

/**
 * Whether the request's path is one `matches`: by the route that matched (so `/%64ocs` and absolute-form
 * targets, which route to `/docs`, count) or by its path (so unknown paths below a prefix count too).
 */
function requestMatches(request: FastifyRequest, matches: (path: string) => boolean): boolean {
  return matches(routeConfig(request).url ?? '') || matches(request.url.split('?')[0] ?? '');
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
 * Whether a domain is served as its routing says. One declared in the config file is, at once: whoever
 * writes that file runs the service. One added through the CLI or the admin API is only once its DNS was
 * found pointing here (`SERVED_STATES`): until then, adding a name proves nothing, and serving it would let
 * whoever adds a name redirect its traffic.
 */
function isServed(domain: DomainRecord): boolean {
  return domain.source === 'file' || SERVED_STATES.has(domain.state);
}

/**
 * The Host rules of custom domains, before anything else answers:
 * - a served domain that redirects gets its status to `https://<to><path and query>`, on every path but the
 *   operator's (`operatorPaths`: the admin API, health, metrics, the TLS ask), which answer by any name, so
 *   that no domain can take them away;
 * - on the reference (`/docs*`, `/openapi.json`), a Host that is neither a served domain, nor one of the
 *   service's own names gets 421 (RFC 9110 section 15.5.20): it was misdirected here. The API under `/v1`
 *   and the operator's paths keep answering by any name, as load balancers and fleets call instances by
 *   addresses no configuration lists.
 * The service's own names are never redirected, whatever is stored. Without domains no rule applies. Every
 * lookup is in memory (`DomainRegistry`).
 */
export function registerDomainRouting(
  app: FastifyInstance,
  options: {
    current: () => DomainIndex;
    ownHosts: ReadonlySet<string>;
    operatorPaths: readonly string[];
  },
): void {
  const { current, ownHosts, operatorPaths } = options;
  const isOperatorPath = (path: string) => operatorPaths.some((prefix) => isUnder(path, prefix));
  app.addHook('onRequest', (request, reply, done) => {
    const domains = current();
    if (domains.size === 0) return done();
    // Fastify's `host` is the Host header, or X-Forwarded-Host when the proxy is trusted.
    const host = hostOf(request.host);
    if (host === undefined || ownHosts.has(host) || requestMatches(request, isOperatorPath)) return done();
    const domain = domains.get(host);
    const served = domain !== undefined && isServed(domain);
    if (served && domain.redirectTo !== null) {
      reply
        .code(domain.redirectStatus ?? 301)
        .header('location', `https://${domain.redirectTo}${pathAndQuery(request.url)}`)
        .send();
      return;
    }
    if (served || !requestMatches(request, isReferencePath)) return done();
    const shown = host.length > 100 ? `${host.slice(0, 100)}…` : host;
    sendError(
      request,
      reply,
      'misdirected_request',
      domain === undefined
        ? `This service does not publish its reference at ${shown}: the Host is not a configured domain`
        : `This service does not publish its reference at ${shown} yet: the domain is ${domain.state}, not verified (see petstore domains status ${shown})`,
    );
  });
}
