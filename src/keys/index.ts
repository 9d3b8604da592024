export {
  type Authentication,
  type Authenticator,
  createAuthenticator,
} from './authenticator.js';
export { generateKey, KEY_PATTERN, KEY_PATTERN_SOURCE, keyEnvironment } from './format.js';
export { bearerToken, identifyCaller, requireApiKey } from './hook.js';
export { type CreateKeyInput, createKeyManager, KeyInputError, type KeyManager, PLANS } from './manager.js';
