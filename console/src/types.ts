// The shapes the console reads, from the admin API's contract. admin.ts is imported, not the contract's
// index, because the index also re-exports modules written for Node, which this DOM-only build cannot check.
import type { Static } from '@sinclair/typebox';
import type {
  AdminOperationId,
  ApiKeyCreated as ApiKeyCreatedSchema,
  DomainRemoval as DomainRemovalSchema,
  Domain as DomainSchema,
  KeyUsage as KeyUsageSchema,
  Session as SessionSchema,
  SessionStarted as SessionStartedSchema,
  UsageSeries as UsageSeriesSchema,
} from '../../src/contract/admin.js';
import type {
  WebhookDeliveryDetail as WebhookDeliveryDetailSchema,
  WebhookDelivery as WebhookDeliverySchema,
  Webhook as WebhookSchema,
  WebhookTestSent as WebhookTestSentSchema,
  WebhookWithSecret as WebhookWithSecretSchema,
} from '../../src/contract/webhooks.js';

export type {
  AdminTokenCreatedView as AdminTokenCreated,
  AdminTokenView as AdminToken,
  ApiKey,
  ApiKeyChange,
  AuditEvent,
  DomainSettings,
  NewAdminToken,
  NewApiKey,
  NewDomain,
  PersonSessionsEnd,
  PersonSessionsEndedView as PersonSessionsEnded,
  PersonView as Person,
} from '../../src/contract/admin.js';
export type { EventType } from '../../src/contract/event-types.js';
export type { PlanName, Scope } from '../../src/contract/keys.js';
/** One answered request, as the request log keeps it for the operator. */
export type { AdminLoggedRequest, RequestQuery } from '../../src/contract/requests.js';
export type { NewWebhook, WebhookChange } from '../../src/contract/webhooks.js';

export type ApiKeyCreated = Static<typeof ApiKeyCreatedSchema>;
export type Domain = Static<typeof DomainSchema>;
export type DomainState = Domain['state'];
export type DomainRemoval = Static<typeof DomainRemovalSchema>;
/** A browser session, made from an admin token; the token itself is kept nowhere after. */
export type Session = Static<typeof SessionSchema>;
/** A session just started, with its second secret. */
export type SessionStarted = Static<typeof SessionStartedSchema>;
export type UsageSeries = Static<typeof UsageSeriesSchema>;
export type UsageBucket = UsageSeries['buckets'][number];
export type Granularity = UsageSeries['granularity'];
/** One key's use of a day, most used first. */
export type KeyUsage = Static<typeof KeyUsageSchema>;
/** A webhook endpoint; its secret is shown once, in {@link WebhookWithSecret}. */
export type Webhook = Static<typeof WebhookSchema>;
export type WebhookWithSecret = Static<typeof WebhookWithSecretSchema>;
/** One event to one endpoint. */
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;
export type DeliveryState = WebhookDelivery['state'];
/** A delivery with every attempt of it. */
export type WebhookDeliveryDetail = Static<typeof WebhookDeliveryDetailSchema>;
export type WebhookAttempt = WebhookDeliveryDetail['log'][number];
export type WebhookTestSent = Static<typeof WebhookTestSentSchema>;

export type { AdminOperationId };
