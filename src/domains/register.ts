import type { FastifyInstance } from 'fastify';
import { ownHosts } from './hosts.js';
import type { DomainRegistry } from './registry.js';
import { registerDomainRouting } from './router.js';
import { registerTlsAsk } from './tls-ask.js';

/** Custom domains on the app: the Host rules on every request and the TLS ask route, from memory. */
export function registerDomains(
  app: FastifyInstance,
  options: {
    registry: DomainRegistry;
    host: string;
    publicUrls: { production: string | undefined; staging: string | undefined };
  },
): void {
  const { current } = options.registry;
  registerDomainRouting(app, { current, ownHosts: ownHosts(options) });
  registerTlsAsk(app, { current });
}
