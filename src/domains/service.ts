import { Resolver } from 'node:dns/promises';
import type { Clock } from '../clock/index.js';
import type { Logger } from '../log/index.js';
import type { CheckDeps } from './check.js';
import { type DomainChecks, startDomainChecks } from './checker.js';
import type { DomainsConfig } from './config.js';
import { createDomainManager, type DomainManager } from './manager.js';
import { createDomainRegistry, type DomainRegistry } from './registry.js';
import { createDomainReloader, type DomainReloader, type ReadDomains } from './reloader.js';
import { createCertificateProbe } from './tls-probe.js';
import type { DomainCheckOptions, DomainRepository } from './types.js';

/** What a check needs, from the options: a resolver (3 s per try, 2 tries) and the TLS front's probe. */
export function checkDepsOf(options: DomainCheckOptions, clock: Clock): CheckDeps {
  const resolver = new Resolver({ timeout: 3_000, tries: 2 });
  if (options.resolver !== undefined) resolver.setServers([options.resolver]);
  return {
    dns: resolver,
    target: options.target,
    ca: options.ca,
    requireTxt: options.requireTxt,
    certificate: createCertificateProbe(options.tlsAddress, clock.now),
  };
}

/** The custom domains of a serving instance, and how they stop. */
export interface Domains {
  manager: DomainManager;
  registry: DomainRegistry;
  checks: DomainChecks;
  /** The config file's `domains`, re-read when the file changes and on SIGHUP. */
  reloader: DomainReloader;
  /** The service's own names, which no domain takes over (`ownHosts`). */
  ownHosts: ReadonlySet<string>;
  /** Stops the re-checks (waiting for one in progress), the following of changes and of the file. */
  close(): Promise<void>;
}

/**
 * Starts the custom domains of a serving instance: the config file's domains stored beside those added by
 * the CLI and the admin API, the index in memory that requests are served from, and the re-checks.
 */
export async function startDomains(deps: {
  repository: DomainRepository;
  watch: (notify: () => void) => Promise<void>;
  options: DomainCheckOptions;
  file: { path: string | undefined; initial: DomainsConfig | undefined; read: ReadDomains };
  ownHosts: ReadonlySet<string>;
  clock: Clock;
  logger: Logger;
}): Promise<Domains> {
  const { repository, clock, logger } = deps;
  const registry = createDomainRegistry({ domains: repository, watch: deps.watch, logger });
  const manager = createDomainManager({
    domains: repository,
    checks: checkDepsOf(deps.options, clock),
    ownHosts: deps.ownHosts,
    clock,
    logger,
    onChange: () => {
      registry.refresh().catch(() => {});
    },
  });
  await manager.syncFile(deps.file.initial);
  const reloader = createDomainReloader({
    file: deps.file.path,
    initial: deps.file.initial,
    read: deps.file.read,
    logger,
    onReload: (domains) => {
      manager
        .syncFile(domains)
        .catch((error: unknown) =>
          logger.error({ err: error }, 'could not store the domains of the config file'),
        );
    },
  });
  await registry.start();
  const checks = startDomainChecks({ manager, logger });
  return {
    manager,
    registry,
    checks,
    reloader,
    ownHosts: deps.ownHosts,
    async close() {
      reloader.close();
      registry.stop();
      await checks.stop();
    },
  };
}
