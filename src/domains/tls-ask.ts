import type { FastifyInstance } from 'fastify';
import { localOnly } from '../health/index.js';
import { JSON_CONTENT_TYPE, sendError } from '../http/index.js';
import type { DomainRepository } from '../storage/index.js';
import { type DomainsConfig, isConfiguredDomain, normalizeDomain } from './config.js';

/** Where a TLS front with on-demand certificates (Caddy's `on_demand_tls { ask … }`) asks. */
export const TLS_ASK_PATH = '/internal/tls/ask';

/**
 * The certificate check of a TLS front: 200 only for a domain that is configured now (the primary or a
 * redirect's `from`) and was verified by `petstore domains verify`; 404 otherwise. Without it, anyone could
 * point a name at the front and make it request certificates in our name until the CA's rate limits hit.
 * Answered only to this machine, not through a proxy, like `/metrics`; elsewhere the path does not exist.
 */
export function registerTlsAsk(
  app: FastifyInstance,
  options: { current: () => DomainsConfig | undefined; verifications: DomainRepository },
): void {
  const { current, verifications } = options;
  app.get(TLS_ASK_PATH, { onRequest: localOnly }, async (request, reply) => {
    const { domain: raw } = request.query as Record<string, unknown>;
    if (typeof raw !== 'string' || raw.trim() === '') {
      return sendError(request, reply, 'validation_failed', 'The query parameter domain is required, once');
    }
    const domain = normalizeDomain(raw);
    const shown = JSON.stringify(domain.slice(0, 100));
    if (!isConfiguredDomain(current(), domain)) {
      return sendError(request, reply, 'not_found', `${shown} is not a configured domain`);
    }
    if (!(await verifications.isVerified(domain))) {
      return sendError(
        request,
        reply,
        'not_found',
        `${shown} is configured but not verified: run petstore domains verify ${domain} --target <dns target>`,
      );
    }
    return reply.type(JSON_CONTENT_TYPE).send(JSON.stringify({ domain, verified: true }));
  });
}
