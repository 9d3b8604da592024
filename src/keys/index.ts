export { type Authenticator, createAuthenticator } from './authenticator.js';
export { type ExpiryNotices, startExpiryNotices } from './expiring.js';
export {
  ADMIN_TOKEN_PATTERN,
  adminTokenPrefix,
  generateAdminToken,
  generateKey,
  isAdminToken,
  KEY_PATTERN,
  KEY_PATTERN_SOURCE,
  keyDigest,
  keyEnvironment,
  randomBase62,
} from './format.js';
export {
  bearerToken,
  identifyCaller,
  invalidKeyMessage,
  missingCredentialMessage,
  requireApiKey,
  requireScope,
} from './hook.js';
export { crc32, KEY_LENGTH, type KeyFault, keyFault } from './key-text.js';
export {
  type CreateKeyInput,
  checkName,
  createKeyManager,
  type IssuedKey,
  KeyExpiredError,
  KeyInputError,
  type KeyManager,
  KeyRevokedError,
  KeyRotatedError,
  MAX_GRACE_MS,
  type RevokedKeys,
} from './manager.js';
export {
  type ApiKeyChange,
  type ApiKeyRecord,
  type ApiKeyRepository,
  type Environment,
  PLANS,
  type Plan,
} from './record.js';
export {
  type CredentialReloader,
  createCredentialReloader,
  KEY_REFRESH_MS,
  MISS_RECHECKS_PER_SECOND,
} from './reloader.js';
export { keyState, keyView } from './view.js';
