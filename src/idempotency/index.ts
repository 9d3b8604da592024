export { createIdempotentCreates, IDEMPOTENCY_TTL_MS, type IdempotentCreates } from './creates.js';
export { IDEMPOTENCY_KEY_MAX, parseIdempotencyKey, registerIdempotencyKey } from './key.js';
export { startPurging } from './purge.js';
