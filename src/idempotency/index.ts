export {
  createIdempotentCreates,
  IDEMPOTENCY_TTL_MS,
  type IdempotentCreates,
  sendAnswer,
} from './creates.js';
export { registerIdempotencyKey } from './key.js';
export { startPurging } from './purge.js';
