import type { FastifyInstance } from 'fastify';
import type { DomainRepository } from '../storage/index.js';
import { ownHosts } from './hosts.js';
import type { DomainReloader } from './reloader.js';
import { registerDomainRouting } from './router.js';
import { registerTlsAsk } from './tls-ask.js';

/**
 * Custom domains on the app: the Host rules on every request, the TLS ask route, and the end of watching
 * the config file when the app closes.
 */
export function registerDomains(
  app: FastifyInstance,
  options: {
    domains: DomainReloader;
    verifications: DomainRepository;
    host: string;
    publicUrls: { production: string | undefined; staging: string | undefined };
  },
): void {
  const { domains, verifications } = options;
  const { current } = domains;
  // Domains come only from the config file: without one the hot path is left without the hook.
  if (domains.reloadable) registerDomainRouting(app, { current, ownHosts: ownHosts(options) });
  registerTlsAsk(app, { current, verifications });
  app.addHook('onClose', (_instance, done) => {
    domains.close();
    done();
  });
}
