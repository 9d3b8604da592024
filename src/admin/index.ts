export { type AdminAuthenticator, createAdminAuthenticator } from './authenticator.js';
export {
  clearSessionCookie,
  sessionTransportAllowed,
  setSessionCookie,
} from './cookie.js';
export { identifyAdmin, requireAdmin } from './hook.js';
export { OIDC_CALLBACK_PATH, OIDC_START_PATH, registerOidcSignIn } from './oidc-sign-in.js';
export { personRecheck, RECHECK_MS } from './person-recheck.js';
export { insufficientRole, requireRole, roleOf } from './roles.js';
export { createAdminHandlers } from './routes.js';
export {
  type AdminPrincipal,
  createSessions,
  type PersonRecheck,
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
} from './tokens.js';
