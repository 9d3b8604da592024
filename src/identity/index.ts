// Who calls the admin API and the console, and what they may do: admin tokens, console sessions and their
// cookie, sign-in with an OpenID Connect provider and the re-check of a person's groups, and the hooks that
// identify the principal of a request and check its role. The admin API's handlers (admin/) build on it.
export {
  type AdminTokenManager,
  type AdminTokenRecord,
  type AdminTokenRepository,
  createAdminTokenManager,
  makerNames,
  type PersonToken,
  type TokenMaker,
  tokenMaker,
} from './admin-tokens.js';
export { registerOidcSignIn } from './oidc-sign-in.js';
export { personRecheck } from './person-recheck.js';
export { INVALID_CHALLENGE, identifyAdmin, MISSING_CHALLENGE, requireAdmin } from './principal.js';
export { insufficientRole, requireRole, roleOf } from './role-check.js';
export {
  clearSessionCookie,
  sessionTransportAllowed,
  setSessionCookie,
} from './session-cookie.js';
export {
  createSessions,
  SESSION_IDLE_MS,
  SESSION_MAX_MS,
  type SessionRecord,
  type SessionRepository,
  type Sessions,
  type SessionView,
} from './sessions.js';
export { type AdminAuthenticator, createAdminAuthenticator } from './token-authenticator.js';
