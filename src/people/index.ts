export { createRelyingParty, type OidcOptions, providerFailure, type RelyingParty } from './oidc.js';
export { groupsOf, roleOfGroups } from './roles.js';
export type {
  OidcLogin,
  OidcLoginRepository,
  PeopleRepository,
  PersonRecord,
} from './types.js';
