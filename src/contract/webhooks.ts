import { type Static, type TString, Type } from '@sinclair/typebox';
import { stringEnum } from './enum.js';
import { EVENT_TYPES } from './event-types.js';
import { OrNull, Timestamp, TimestampInput } from './fields.js';

export { EVENT_TYPES, type EventType } from './event-types.js';

/** The most deliveries one request lists, and by default. */
export const DELIVERY_PAGE = { default: 50, max: 500 } as const;

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

const Description = Type.String({ maxLength: 500, description: 'For people, up to 500 characters.' });

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
  disabledReason: Type.Union([stringEnum(['manual', 'gone', 'failing'] as const), Type.Null()], {
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
  state: stringEnum(['pending', 'delivered', 'failed'] as const, {
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
    state: Type.Optional(stringEnum(['pending', 'delivered', 'failed'] as const)),
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

export type NewWebhook = Static<typeof NewWebhook>;
export type WebhookChange = Static<typeof WebhookChange>;
export type WebhookTest = Static<typeof WebhookTest>;
export type DeliveryReplay = Static<typeof DeliveryReplay>;
export type DeliveryQuery = Static<typeof DeliveryQuery>;
