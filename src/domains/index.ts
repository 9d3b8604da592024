export type { CheckDeps } from './check.js';
export { type DomainChecks, startDomainChecks } from './checker.js';
export {
  type DomainsConfig,
  type DomainsFile,
  describeDomainProblem,
  isDomainName,
  normalizeDomain,
  parseDomains,
  REDIRECT_STATUSES,
} from './config.js';
export { hostOf, ownHosts } from './hosts.js';
export {
  type AddDomain,
  createDomainManager,
  DomainConflictError,
  DomainInputError,
  type DomainManager,
  type DomainView,
} from './manager.js';
export { registerDomains } from './register.js';
export { createDomainRegistry, type DomainIndex, type DomainRegistry } from './registry.js';
export { createDomainReloader, type DomainReloader } from './reloader.js';
export { nextCheckDelay } from './schedule.js';
export { checkDepsOf, type Domains, startDomains } from './service.js';
export { type CertificateProbe, createCertificateProbe, type TlsProbe } from './tls-probe.js';
export {
  CERTIFIABLE_STATES,
  type CheckOutcome,
  DOMAIN_STATES,
  type DomainCheckOptions,
  type DomainCheckResult,
  type DomainRecord,
  type DomainRemoval,
  type DomainRepository,
  type DomainState,
} from './types.js';
export {
  challengeName,
  type DnsQueries,
  type Verification,
  verifyDomain,
  verifyWithRetries,
} from './verify.js';
