export { groupsOf, roleOfGroups } from './group-roles.js';
export { createRelyingParty, type OidcOptions, providerFailure, type RelyingParty } from './oidc.js';
export type {
  OidcLogin,
  OidcLoginRepository,
  PeopleRepository,
  PersonRecord,
} from './types.js';
