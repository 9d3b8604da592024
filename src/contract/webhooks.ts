import { type Static, type TSchema, type TString, Type } from '@sinclair/typebox';
import { ADMIN_BODY_ERRORS, type AdminOperation } from './admin-operation.js';
import { stringEnum } from './enum.js';
import { EVENT_TYPES } from './event-types.js';
import { OrNull, Timestamp, TimestampInput } from './fields.js';

export { EVENT_TYPES, type EventType } from './event-types.js';

/** The most deliveries one request lists, and by default. */
export const DELIVERY_PAGE = { default: 50, max: 500 } as const;

/**
 * Why an endpoint takes no deliveries: disabled by an operator, by its receiver answering `410 Gone`, or by
 * failing without a success for `WEBHOOKS_DISABLE_AFTER_DAYS`.
 */
export const DISABLED_REASONS = ['manual', 'gone', 'failing'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

/** Where a delivery stands: an attempt due, delivered (a 2xx), or failed with no attempt left. */
export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/**
 * An event type as a client names it. A plain string here, checked against {@link EVENT_TYPES} by the
 * manager, so that an unknown one is refused with the name of the catalogue, not a schema's enum dump.
 */
const eventTypeName = (description: string): TString =>
  Type.String({ minLength: 1, maxLength: 100, description, examples: ['order.placed'] });
const EventTypeName = eventTypeName('An event type of the catalogue, such as `order.placed`.');

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'Where events are POSTed: absolute `https://` (or `http://`), resolving to public addresses only unless ' +
    'the operator set `WEBHOOKS_ALLOW_PRIVATE=true`. Credentials in it are sent, and never shown again.',
  examples: ['https://hooks.example.com/petstore'],
});

/** The longest description of an endpoint, in characters: the CLI's, checked by the manager, too. */
export const WEBHOOK_DESCRIPTION_MAX = 500;

const Description = Type.String({
  maxLength: WEBHOOK_DESCRIPTION_MAX,
  description: `For people, up to ${WEBHOOK_DESCRIPTION_MAX} characters.`,
});

export const WebhookParams = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^we_[0-9a-f]{20}$',
      description: 'The endpoint’s id.',
      examples: ['we_0123456789abcdef0123'],
    }),
  },
  { additionalProperties: false },
);

export const DeliveryParams = Type.Object(
  {
    id: WebhookParams.properties.id,
    deliveryId: Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'The delivery’s id.',
    }),
  },
  { additionalProperties: false },
);

export const NewWebhook = Type.Object(
  {
    url: Url,
    events: Type.Array(EventTypeName, {
      minItems: 1,
      maxItems: 50,
      description: 'The event types it receives.',
    }),
    description: Type.Optional(Description),
  },
  { additionalProperties: false, description: 'An endpoint to add. Unknown fields are refused.' },
);

export const WebhookChange = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Type.Array(EventTypeName, { minItems: 1, maxItems: 50 })),
    description: Type.Optional(Description),
    enabled: Type.Optional(
      Type.Boolean({ description: 'false stops its deliveries (they wait); true starts them again.' }),
    ),
  },
  { additionalProperties: false, description: 'What to change; what is left out stays.' },
);

export const WebhookTest = Type.Object(
  {
    type: Type.Optional(eventTypeName('The test event’s type: the endpoint’s first by default.')),
  },
  { additionalProperties: false },
);

export const DeliveryReplay = Type.Object(
  { since: TimestampInput('Every failed delivery made at or after this time is sent again.') },
  { additionalProperties: false },
);

const WebhookFields = {
  id: Type.String(),
  url: Type.String({ description: 'Its URL, with any user name and password shown as `***`.' }),
  description: Type.String(),
  events: Type.Array(stringEnum(EVENT_TYPES)),
  enabled: Type.Boolean(),
  disabledReason: Type.Union([stringEnum(DISABLED_REASONS), Type.Null()], {
    description:
      '`manual`: disabled by an operator; `gone`: its receiver answered 410; `failing`: no success for `WEBHOOKS_DISABLE_AFTER_DAYS` (5 by default).',
  }),
  createdAt: Timestamp('When it was added.'),
  updatedAt: Timestamp('Its last change.'),
  failingSince: OrNull(Timestamp('Since when every attempt has failed; null after a success.')),
  previousSecretUntil: OrNull(
    Timestamp('Until when the secret before the last rotation signs beside the current one.'),
  ),
};

export const Webhook = Type.Object(WebhookFields, {
  additionalProperties: false,
  description: 'A webhook endpoint. Its secret is shown once, when it is made or rotated.',
});

export const WebhookWithSecret = Type.Object(
  {
    ...WebhookFields,
    secret: Type.String({
      description:
        'The signing secret, `whsec_…`: shown this once. Verify with any Standard Webhooks library.',
    }),
  },
  { additionalProperties: false, description: 'An endpoint with its new signing secret.' },
);

const DeliveryFields = {
  id: Type.Integer(),
  eventId: Type.String({ description: 'The event’s id, sent as `webhook-id` on every attempt.' }),
  eventType: stringEnum(EVENT_TYPES),
  state: stringEnum(DELIVERY_STATES, {
    description: '`pending`: an attempt is due at `nextAttemptAt`; `failed`: no attempt is left (replay it).',
  }),
  attempts: Type.Integer({ minimum: 0 }),
  lastStatus: Type.Union([Type.Integer(), Type.Null()], { description: 'The last answer’s status code.' }),
  nextAttemptAt: OrNull(
    Timestamp(
      'When the next attempt goes; null once none will, or while its endpoint is disabled (due once enabled).',
    ),
  ),
  createdAt: Timestamp('When the event was kept.'),
  updatedAt: Timestamp('Its last attempt or replay.'),
};

export const WebhookDelivery = Type.Object(DeliveryFields, {
  additionalProperties: false,
  description: 'One event to one endpoint.',
});

export const WebhookDeliveryDetail = Type.Object(
  {
    ...DeliveryFields,
    log: Type.Array(
      Type.Object(
        {
          attempt: Type.Integer({ minimum: 1 }),
          at: Timestamp('When it was sent.'),
          status: Type.Union([Type.Integer(), Type.Null()], { description: 'null: no answer came.' }),
          latencyMs: Type.Number({ minimum: 0 }),
          response: Type.String({ description: 'The answer’s first KiB.' }),
          error: Type.Union([Type.String(), Type.Null()], {
            description: 'Why no answer came, or why it was cut.',
          }),
          nextAttemptAt: OrNull(Timestamp('When the attempt after it was due.')),
        },
        { additionalProperties: false },
      ),
      { description: 'Every attempt, oldest first.' },
    ),
  },
  { additionalProperties: false, description: 'A delivery with every attempt of it.' },
);

export const DeliveryQuery = Type.Object(
  {
    state: Type.Optional(stringEnum(DELIVERY_STATES)),
    since: Type.Optional(TimestampInput('Only deliveries made at or after this time.')),
    before: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'Only deliveries before this id (the next page).',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: DELIVERY_PAGE.max, default: DELIVERY_PAGE.default }),
    ),
  },
  { additionalProperties: false },
);

export const WebhookTestSent = Type.Object(
  { eventId: Type.String(), type: stringEnum(EVENT_TYPES) },
  { additionalProperties: false, description: 'The test event, kept and due at once.' },
);

export const ReplayCount = Type.Object(
  { replayed: Type.Integer({ minimum: 0, description: 'How many deliveries are due again.' }) },
  { additionalProperties: false },
);

export const WEBHOOK_SCHEMAS = {
  NewWebhook,
  WebhookChange,
  Webhook,
  WebhookWithSecret,
  WebhookTest,
  WebhookTestSent,
  WebhookDelivery,
  WebhookDeliveryDetail,
  DeliveryReplay,
  ReplayCount,
} satisfies Record<string, TSchema>;

export const WEBHOOK_PARAMETERS = { WebhookParams, DeliveryParams, DeliveryQuery } satisfies Record<
  string,
  TSchema
>;

export const WEBHOOK_OPERATIONS = [
  {
    operationId: 'listWebhooks',
    method: 'GET',
    path: '/webhooks',
    tag: 'Webhooks',
    role: 'viewer',
    summary: 'List webhook endpoints',
    description:
      'Every endpoint, oldest first, with its health (`enabled`, `disabledReason`, `failingSince`).',
    success: { status: 200, description: 'Every endpoint.', schema: 'Webhook', array: true },
    errors: [],
  },
  {
    operationId: 'createWebhook',
    method: 'POST',
    path: '/webhooks',
    tag: 'Webhooks',
    role: 'admin',
    summary: 'Add a webhook endpoint',
    description:
      'Every event of the types named is POSTed to the URL, signed per the Standard Webhooks specification ' +
      'with the `secret` of the answer, shown this once. A URL whose host resolves to a loopback, private, ' +
      'link-local or metadata address is refused (`WEBHOOKS_ALLOW_PRIVATE=true` allows it), and checked ' +
      'again at every connection.',
    requestBody: 'NewWebhook',
    success: { status: 201, description: 'The endpoint and its secret.', schema: 'WebhookWithSecret' },
    errors: [...ADMIN_BODY_ERRORS],
  },
  {
    operationId: 'getWebhook',
    method: 'GET',
    path: '/webhooks/{id}',
    tag: 'Webhooks',
    role: 'viewer',
    summary: 'Show a webhook endpoint',
    description: 'The endpoint, without its secret.',
    params: 'WebhookParams',
    success: { status: 200, description: 'The endpoint.', schema: 'Webhook' },
    errors: [400, 404],
  },
  {
    operationId: 'updateWebhook',
    method: 'PATCH',
    path: '/webhooks/{id}',
    tag: 'Webhooks',
    role: 'admin',
    summary: 'Change a webhook endpoint',
    description:
      'Its URL, event types, description, or `enabled`: a disabled endpoint’s deliveries wait, and go once ' +
      'it is enabled again.',
    params: 'WebhookParams',
    requestBody: 'WebhookChange',
    success: { status: 200, description: 'The endpoint.', schema: 'Webhook' },
    errors: [...ADMIN_BODY_ERRORS, 404],
  },
  {
    operationId: 'deleteWebhook',
    method: 'DELETE',
    path: '/webhooks/{id}',
    tag: 'Webhooks',
    role: 'admin',
    summary: 'Delete a webhook endpoint',
    description: 'The endpoint goes with its deliveries and their log; nothing more is sent to it.',
    params: 'WebhookParams',
    success: { status: 200, description: 'The endpoint as it was.', schema: 'Webhook' },
    errors: [400, 404],
  },
  {
    operationId: 'rotateWebhookSecret',
    method: 'POST',
    path: '/webhooks/{id}/rotate-secret',
    tag: 'Webhooks',
    role: 'owner',
    summary: 'Rotate a webhook endpoint’s secret',
    description:
      'A new secret, shown this once. For 24 hours every attempt carries two signatures, one with each ' +
      'secret, so the receiver can switch to the new one in its own time; then only the new one signs.',
    params: 'WebhookParams',
    success: { status: 201, description: 'The endpoint and its new secret.', schema: 'WebhookWithSecret' },
    errors: [400, 404],
  },
  {
    operationId: 'testWebhook',
    method: 'POST',
    path: '/webhooks/{id}/test',
    tag: 'Webhooks',
    role: 'admin',
    summary: 'Send a webhook endpoint a test event',
    description:
      'Sends an event of `type` (the endpoint’s first event type by default) whose `data` is ' +
      '`{"test": true, "endpoint": "<id>"}`, at once, retried as any event; its delivery is in the log. ' +
      '400 for a disabled endpoint.',
    params: 'WebhookParams',
    requestBody: 'WebhookTest',
    optionalBody: true,
    success: { status: 201, description: 'The test event.', schema: 'WebhookTestSent' },
    errors: [...ADMIN_BODY_ERRORS, 404],
  },
  {
    operationId: 'listWebhookDeliveries',
    method: 'GET',
    path: '/webhooks/{id}/deliveries',
    tag: 'Webhooks',
    role: 'viewer',
    summary: 'List a webhook endpoint’s deliveries',
    description:
      'Its delivery log, newest first: the event, its state, attempts, the last status and the next retry. ' +
      'Page with `before` (the last id seen).',
    params: 'WebhookParams',
    query: 'DeliveryQuery',
    success: { status: 200, description: 'The deliveries.', schema: 'WebhookDelivery', array: true },
    errors: [400, 404],
  },
  {
    operationId: 'getWebhookDelivery',
    method: 'GET',
    path: '/webhooks/{id}/deliveries/{deliveryId}',
    tag: 'Webhooks',
    role: 'viewer',
    summary: 'Show a delivery and its attempts',
    description:
      'Every attempt: when, the status code, the latency, the answer’s first KiB, and the next retry.',
    params: 'DeliveryParams',
    success: { status: 200, description: 'The delivery.', schema: 'WebhookDeliveryDetail' },
    errors: [400, 404],
  },
  {
    operationId: 'replayWebhookDelivery',
    method: 'POST',
    path: '/webhooks/{id}/deliveries/{deliveryId}/replay',
    tag: 'Webhooks',
    role: 'admin',
    summary: 'Replay a delivery',
    description:
      'Sends the event again at once, with the same `webhook-id`, and retries it on the schedule if it fails. ' +
      '409 `delivery_in_progress` while an attempt of it is under way.',
    params: 'DeliveryParams',
    success: { status: 200, description: 'The delivery, due again.', schema: 'WebhookDelivery' },
    errors: [400, 404, 409],
  },
  {
    operationId: 'replayFailedWebhookDeliveries',
    method: 'POST',
    path: '/webhooks/{id}/deliveries/replay',
    tag: 'Webhooks',
    role: 'admin',
    summary: 'Replay the failed deliveries since a time',
    description: 'Every delivery of the endpoint that failed and was made at or after `since` is due again.',
    params: 'WebhookParams',
    requestBody: 'DeliveryReplay',
    success: { status: 200, description: 'How many are due again.', schema: 'ReplayCount' },
    errors: [...ADMIN_BODY_ERRORS, 404],
  },
] as const satisfies readonly AdminOperation<keyof typeof WEBHOOK_SCHEMAS, keyof typeof WEBHOOK_PARAMETERS>[];

export type NewWebhook = Static<typeof NewWebhook>;
export type WebhookChange = Static<typeof WebhookChange>;
export type WebhookTest = Static<typeof WebhookTest>;
export type DeliveryReplay = Static<typeof DeliveryReplay>;
export type DeliveryQuery = Static<typeof DeliveryQuery>;
export type Webhook = Static<typeof Webhook>;
export type WebhookWithSecret = Static<typeof WebhookWithSecret>;
export type WebhookDelivery = Static<typeof WebhookDelivery>;
export type WebhookDeliveryDetail = Static<typeof WebhookDeliveryDetail>;
export type WebhookTestSent = Static<typeof WebhookTestSent>;
