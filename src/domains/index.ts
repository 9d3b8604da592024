export {
  type DomainsConfig,
  type DomainsFile,
  isConfiguredDomain,
  isDomainName,
  normalizeDomain,
  parseDomains,
} from './config.js';
export { hostOf, ownHosts } from './hosts.js';
export { registerDomains } from './register.js';
export { createDomainReloader, type DomainReloader } from './reloader.js';
export { type Verification, verifyDomain, verifyWithRetries } from './verify.js';
