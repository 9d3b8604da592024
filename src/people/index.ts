export { type Claims, createRelyingParty, type OidcOptions, type RelyingParty } from './oidc.js';
export { groupsOf, type RoleMapping, roleOfGroups } from './roles.js';
export type {
  OidcLogin,
  OidcLoginRepository,
  PeopleRepository,
  PersonRecord,
  PersonSignIn,
  PersonWithSessions,
} from './types.js';
