export { type Authenticator, createAuthenticator } from './authenticator.js';
export { generateKey, KEY_PATTERN, KEY_PATTERN_SOURCE, keyEnvironment } from './format.js';
export { bearerToken, identifyCaller, requireApiKey } from './hook.js';
export { type CreateKeyInput, createKeyManager, KeyInputError } from './manager.js';
export { type ApiKeyRecord, type ApiKeyRepository, type Environment, PLANS, type Plan } from './record.js';
