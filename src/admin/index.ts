export { type AdminAuthenticator, createAdminAuthenticator } from './authenticator.js';
export {
  clearSessionCookie,
  sessionTransportAllowed,
  setSessionCookie,
} from './cookie.js';
export { identifyAdmin, requireAdmin } from './hook.js';
export { registerOidcSignIn } from './oidc-sign-in.js';
export { personRecheck } from './person-recheck.js';
export { insufficientRole, requireRole, roleOf } from './roles.js';
export { createAdminHandlers } from './routes.js';
export {
  createSessions,
  SESSION_IDLE_MS,
  SESSION_MAX_MS,
  type SessionRecord,
  type SessionRepository,
  type Sessions,
  type SessionView,
} from './sessions.js';
export {
  type AdminTokenManager,
  type AdminTokenRecord,
  type AdminTokenRepository,
  createAdminTokenManager,
  makerNames,
  type PersonToken,
  type TokenMaker,
  tokenMaker,
} from './tokens.js';
