export { type AdminAuthenticator, createAdminAuthenticator } from './authenticator.js';
export { identifyAdmin, requireAdmin } from './hook.js';
export { createAdminHandlers } from './routes.js';
export {
  type AdminTokenManager,
  type AdminTokenRecord,
  type AdminTokenRepository,
  createAdminTokenManager,
} from './tokens.js';
