export {
  ATTEMPT_TIMEOUT_MS,
  type AttemptResult,
  createSender,
  EXCERPT_BYTES,
  type Sender,
  type SenderOptions,
} from './attempt.js';
export {
  createDispatcher,
  DISABLE_AFTER_MS,
  DISPATCHER_ACTOR,
  type Dispatcher,
  type DispatcherOptions,
} from './dispatcher.js';
export {
  EVENT_API_VERSION,
  EVENT_TYPES,
  type EventType,
  isEventType,
  newEventId,
  storedEvent,
  storedEventOfJson,
  type WebhookEvent,
} from './events.js';
export {
  type AttemptView,
  createWebhookManager,
  type DeliveryView,
  deliveryView,
  type EndpointInput,
  type EndpointUpdate,
  type EndpointView,
  endpointView,
  ROTATION_OVERLAP_MS,
  WebhookInputError,
  type WebhookManager,
} from './manager.js';
export { DEFAULT_RETENTION_MS, type Pruning, startPruning } from './retention.js';
export { MAX_ATTEMPTS, nextAttemptAt, RETRY_DELAYS_MS } from './schedule.js';
export { startWebhooks, type Webhooks } from './service.js';
export {
  newSigningSecret,
  type SignatureHeaders,
  sign,
  signedHeaders,
  signedMessage,
} from './signing.js';
export {
  checkLiteral,
  checkTarget,
  displayUrl,
  guardedLookup,
  maskedUrl,
  nonPublicRange,
  parseWebhookUrl,
  type TargetPolicy,
  TargetRefused,
} from './target.js';
export type {
  AttemptOutcome,
  AttemptRecord,
  DeliveryRecord,
  DeliveryState,
  DisabledReason,
  DueDelivery,
  EndpointChange,
  NewEndpoint,
  PendingEvent,
  StoredEvent,
  TellingEntry,
  WebhookEndpoint,
  WebhookOptions,
  WebhookRepository,
} from './types.js';
