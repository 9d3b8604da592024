export {
  ADMIN_OPERATIONS,
  ADMIN_PARAMETER_SCHEMAS,
  ADMIN_PREFIX,
  ADMIN_SCHEMAS,
  type AdminOperationId,
} from './admin.js';
export { type AdminDocumentOptions, buildAdminDocument } from './admin-openapi.js';
export type { AdminTokenCreatedView, AdminTokenView, NewAdminToken } from './admin-tokens.js';
export { successAnswers } from './answers.js';
export type { ApiKey, ApiKeyChange, NewApiKey, Rotation } from './api-keys.js';
export { ADMIN_API, API_PREFIX, V1_API } from './apis.js';
export { AUDIT_PAGE, type AuditEvent, type AuditQuery } from './audit.js';
export type { ApiDescription } from './document.js';
export type { Domain, NewDomain } from './domains.js';
export {
  DATE_TIME_PATTERN,
  type KeyInfo,
  type KeyRotation,
  type KeyUsageHistory,
  MAX_GRACE_SECONDS,
  PLAN_NAMES,
  type PlanName,
  type RevokedKey,
  type RotatedKey,
  SCOPES,
  type Scope,
  type UsageDay,
} from './keys.js';
export { API_VERSION, buildOpenApiDocument } from './openapi.js';
export type { Operation } from './operation.js';
export { OPERATIONS, type OperationId } from './operations.js';
export type { PersonSessionsEnd, PersonSessionsEndedView, PersonView } from './people.js';
export { REQUEST_ID_PATTERN } from './request-id.js';
export {
  type AdminLoggedRequest,
  type LoggedRequest,
  type OwnRequestQuery,
  REQUESTS_PAGE,
  type RequestQuery,
} from './requests.js';
export {
  ACTOR_KINDS,
  type ActorKind,
  isRole,
  personName,
  ROLE_MEANING,
  ROLES,
  type Role,
  roleAllows,
} from './roles.js';
export {
  Category,
  type CategoryQuery,
  DEFAULT_PAGE_LIMIT,
  IDEMPOTENCY_KEY_MAX,
  IDEMPOTENCY_KEY_PATTERN,
  NewCategory,
  NewOrder,
  NewPet,
  Order,
  type OrderQuery,
  type OrderStatus,
  PAGE_LIMIT_MAX,
  PARAMETER_SCHEMAS,
  Pet,
  type PetQuery,
  type PetStatus,
  SCHEMAS,
} from './schemas.js';
export type { SessionStart } from './sessions.js';
export { type KeyUsageQuery, USAGE_SPAN, type UsageQuery } from './usage.js';
export {
  EVENT_API_VERSION,
  EVENT_CATALOGUE,
  EVENT_DATA_SCHEMAS,
  EVENT_SCHEMAS,
  type EventSchema,
  TestEvent,
  type WebhookEvent,
  WebhookTestData,
} from './webhook-events.js';
export {
  DELIVERY_PAGE,
  DELIVERY_STATES,
  type DeliveryQuery,
  type DeliveryReplay,
  type DeliveryState,
  DISABLED_REASONS,
  type DisabledReason,
  EVENT_TYPES,
  type EventType,
  type NewWebhook,
  WEBHOOK_DESCRIPTION_MAX,
  type Webhook,
  type WebhookChange,
  type WebhookDelivery,
  type WebhookDeliveryDetail,
  type WebhookTest,
  type WebhookTestSent,
  type WebhookWithSecret,
} from './webhooks.js';
