// The shapes the console reads, from the admin API's contract: each resource's module, not the contract's
// index, because the index also re-exports modules written for Node, which this DOM-only build cannot check.
import type { Static } from '@sinclair/typebox';
import type { AdminOperationId } from '../../src/contract/admin.js';
import type { ApiKeyCreated as ApiKeyCreatedSchema } from '../../src/contract/api-keys.js';
import type {
  DomainRemoval as DomainRemovalSchema,
  Domain as DomainSchema,
} from '../../src/contract/domains.js';
import type {
  Session as SessionSchema,
  SessionStarted as SessionStartedSchema,
} from '../../src/contract/sessions.js';
import type {
  KeyUsage as KeyUsageSchema,
  UsageSeries as UsageSeriesSchema,
} from '../../src/contract/usage.js';
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
  NewAdminToken,
} from '../../src/contract/admin-tokens.js';
export type { ApiKey, ApiKeyChange, NewApiKey } from '../../src/contract/api-keys.js';
export type { AuditEvent } from '../../src/contract/audit.js';
export type { DomainSettings, NewDomain } from '../../src/contract/domains.js';
export type { EventType } from '../../src/contract/event-types.js';
export type { PlanName, Scope } from '../../src/contract/keys.js';
export type {
  PersonSessionsEnd,
  PersonSessionsEndedView as PersonSessionsEnded,
  PersonView as Person,
} from '../../src/contract/people.js';
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
