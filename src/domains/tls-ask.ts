import type { FastifyInstance } from 'fastify';
import { localOnly } from '../health/index.js';
import { JSON_CONTENT_TYPE, sendError } from '../http/index.js';
import { normalizeDomain } from './config.js';
import type { DomainIndex } from './registry.js';
import { CERTIFIABLE_STATES } from './types.js';

/** Where a TLS front with on-demand certificates (Caddy's `on_demand_tls { ask … }`) asks. */
export const TLS_ASK_PATH = '/internal/tls/ask';

/**
 * The certificate check of a TLS front: 200 only for a domain whose DNS was verified (state `verified` or
 * `active`), from memory; 404 otherwise, naming its state. Without it, anyone could point a name at the
 * front and make it request certificates in our name until the CA's rate limits hit. Answered only to this
 * machine, not through a proxy, like `/metrics`; elsewhere the path does not exist.
 */
export function registerTlsAsk(app: FastifyInstance, options: { current: () => DomainIndex }): void {
  const { current } = options;
  app.get<{ Querystring: Record<string, unknown> }>(
    TLS_ASK_PATH,
    { onRequest: localOnly },
    async (request, reply) => {
      const { domain: raw } = request.query;
      if (typeof raw !== 'string' || raw.trim() === '') {
        return sendError(request, reply, 'validation_failed', 'The query parameter domain is required, once');
      }
      const domain = normalizeDomain(raw);
      const shown = JSON.stringify(domain.slice(0, 100));
      const record = current().get(domain);
      if (record === undefined) {
        return sendError(request, reply, 'not_found', `${shown} is not a custom domain of this service`);
      }
      if (!CERTIFIABLE_STATES.has(record.state)) {
        return sendError(
          request,
          reply,
          'not_found',
          `${shown} is ${record.state}, not verified: see petstore domains status ${domain}`,
        );
      }
      return reply.type(JSON_CONTENT_TYPE).send(JSON.stringify({ domain, state: record.state }));
    },
  );
}
