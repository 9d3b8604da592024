export {
  ATTEMPT_TIMEOUT_MS,
  type AttemptResult,
  createSender,
  EXCERPT_BYTES,
  type Sender,
  type SenderOptions,
} from './attempt.js';
export { EVENT_TYPES, type EventType, isEventType, type WebhookEvent } from './events.js';
export { MAX_ATTEMPTS, nextAttemptAt, RETRY_DELAYS_MS } from './schedule.js';
export {
  isSigningSecret,
  newSigningSecret,
  type SignatureHeaders,
  sign,
  signedMessage,
} from './signing.js';
export {
  checkLiteral,
  checkTarget,
  displayUrl,
  guardedLookup,
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
  StoredEvent,
  WebhookEndpoint,
  WebhookRepository,
} from './types.js';
