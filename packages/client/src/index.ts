export {
  type ClientOptions,
  createClient,
  normalizeBaseUrl,
  type PagedLists,
  type PetstoreClient,
} from './client.js';
export type {
  ApiKey,
  Category,
  Domain,
  ErrorCode,
  KeyInfo,
  NewCategory,
  NewOrder,
  NewPet,
  OperationId,
  Order,
  OrderQuery,
  OrderStatus,
  Pet,
  PetQuery,
  PetStatus,
} from './contract.js';
export {
  AuthenticationError,
  type ClientErrorCode,
  ConflictError,
  ConnectionError,
  GoneError,
  isPetstoreError,
  NotFoundError,
  PermissionDeniedError,
  PetstoreError,
  type PetstoreErrorCode,
  type PetstoreErrorOptions,
  RateLimitError,
  ServerError,
  ValidationError,
} from './errors.js';
export { DEFAULT_MAX_RETRIES, DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
export type { FetchLike, PostOptions, RequestOptions, Sleep } from './transport.js';
export {
  verifyWebhook,
  type WebhookEvent,
  type WebhookHeaders,
  WebhookVerificationError,
} from './webhooks.js';
