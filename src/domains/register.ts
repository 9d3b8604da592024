import type { FastifyInstance } from 'fastify';
import type { DomainRegistry } from './registry.js';
import { registerDomainRouting } from './router.js';
import { registerTlsAsk, TLS_ASK_PATH } from './tls-ask.js';

/** Custom domains on the app: the Host rules on every request and the TLS ask route, from memory. */
export function registerDomains(
  app: FastifyInstance,
  options: {
    registry: DomainRegistry;
    ownHosts: ReadonlySet<string>;
    /** Paths no domain redirects: the admin API, health and metrics (the TLS ask route is added here). */
    operatorPaths: readonly string[];
  },
): void {
  const { current } = options.registry;
  registerDomainRouting(app, {
    current,
    ownHosts: options.ownHosts,
    operatorPaths: [...options.operatorPaths, TLS_ASK_PATH],
  });
  registerTlsAsk(app, { current });
}
