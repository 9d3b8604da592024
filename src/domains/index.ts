export {
  type DomainsConfig,
  type DomainsFile,
  DomainsFileSchema,
  isConfiguredDomain,
  isDomainName,
  normalizeDomain,
  parseDomains,
  REDIRECT_STATUSES,
  type Redirect,
  type RedirectStatus,
} from './config.js';
export { hostOf, ownHosts } from './hosts.js';
export { registerDomains } from './register.js';
export { createDomainReloader, type DomainReloader, type ReadDomains } from './reloader.js';
export { isReferencePath } from './router.js';
export { TLS_ASK_PATH } from './tls-ask.js';
export {
  type DnsQueries,
  type Finding,
  type Verification,
  verifyDomain,
  verifyWithRetries,
  WAIT_BACKOFF,
} from './verify.js';
