export {
  type Authentication,
  type Authenticator,
  createAuthenticator,
  KEY_REFRESH_MS,
} from './authenticator.js';
export {
  displayPrefix,
  generateKey,
  KEY_PATTERN,
  KEY_PATTERN_SOURCE,
  keyDigest,
  keyEnvironment,
} from './format.js';
export { bearerToken, identifyCaller, requireApiKey } from './hook.js';
export { type CreateKeyInput, createKeyManager, KeyInputError, type KeyManager, PLANS } from './manager.js';
