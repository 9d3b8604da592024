import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ApiKey } from './api-keys.js';
import { Domain } from './domains.js';
import { stringEnum } from './enum.js';
import { EVENT_TYPES, type EventType } from './event-types.js';
import { OrNull, Timestamp } from './fields.js';
import { Category, Order, Pet } from './schemas.js';
import { type DisabledReason, WebhookParams } from './webhooks.js';

// The events webhooks deliver: the body of each, by type. The admin document publishes them in its `webhooks`
// section, the client's `verifyWebhook` is typed from them, and a test holds the server's hand-written
// payload (src/webhooks/events.ts) to them.

/** The API version whose shapes every event's `data` has: `/v1`'s and `/admin/v1`'s. */
export const EVENT_API_VERSION = 'v1';

/** A key about to expire, told a week and then a day before. */
export const ExpiringApiKey = Type.Object(
  {
    ...ApiKey.properties,
    expiresWithin: stringEnum(['7d', '1d'] as const, { description: 'How far off its expiry is.' }),
  },
  { additionalProperties: false, description: 'An API key whose expiry is near.' },
);

/** A key whose day window reached 80% or 100% of its limit. */
export const ApiKeyAtThreshold = Type.Object(
  {
    ...ApiKey.properties,
    usage: Type.Object(
      {
        window: Type.Literal('day'),
        threshold: Type.Unsafe<80 | 100>({
          type: 'integer',
          enum: [80, 100],
          description: 'The share of the limit reached, in percent.',
        }),
        used: Type.Integer({ minimum: 0, description: 'Requests counted in the window.' }),
        limit: Type.Integer({ minimum: 0, description: 'The window’s limit.' }),
        resetsAt: Timestamp('When the window starts again.'),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'An API key, with its day window’s use.' },
);

/** An endpoint disabled by its failures, as told to the other endpoints: never its URL. */
export const DisabledWebhookEndpoint = Type.Object(
  {
    id: WebhookParams.properties.id,
    reason: stringEnum(['gone', 'failing'] as const satisfies readonly DisabledReason[], {
      description:
        '`gone`: its receiver answered 410; `failing`: no success for `WEBHOOKS_DISABLE_AFTER_DAYS` (5 by default).',
    }),
    host: OrNull(
      Type.String({
        description:
          'Its URL’s host (and port), never the rest: a path or query may be a capability. null: the URL no longer parses.',
        examples: ['hooks.example.com'],
      }),
    ),
  },
  { additionalProperties: false, description: 'A webhook endpoint that was disabled, by its id and host.' },
);

/** Every schema an event's `data` has, by its name under the admin document's `components.schemas`. */
export const EVENT_DATA_SCHEMAS = {
  Category,
  Pet,
  Order,
  ApiKey,
  ExpiringApiKey,
  ApiKeyAtThreshold,
  Domain,
  DisabledWebhookEndpoint,
} satisfies Record<string, TSchema>;

/** What the document says of an event type: when it is sent, and which schema its `data` has. */
interface EventEntry {
  summary: string;
  description: string;
  data: keyof typeof EVENT_DATA_SCHEMAS;
}

const CREATED =
  'Its `data` is the `201` answer’s body, byte for byte. A refused create, and an idempotent replay, tell nothing.';
const KEY = 'Its `data` is the key as `GET /admin/v1/keys/{id}` shows it, never the key itself.';
const DOMAIN = 'Its `data` is the domain as `GET /admin/v1/domains/{name}` shows it.';

/** The catalogue, type by type: a `Record` over the event types, so the compiler demands every one. */
export const EVENT_CATALOGUE = {
  'category.created': {
    summary: 'A category was created',
    description: `\`POST /v1/categories\` created a category. ${CREATED}`,
    data: 'Category',
  },
  'pet.created': {
    summary: 'A pet was created',
    description: `\`POST /v1/pets\` created a pet. ${CREATED}`,
    data: 'Pet',
  },
  'order.placed': {
    summary: 'An order was placed',
    description: `\`POST /v1/store/orders\` placed an order. ${CREATED}`,
    data: 'Order',
  },
  'key.created': {
    summary: 'A key was created',
    description: `A key was created, by the admin API or the CLI. ${KEY}`,
    data: 'ApiKey',
  },
  'key.rotated': {
    summary: 'A key was rotated',
    description: `A key was rotated, by the admin API or the CLI. Its \`data\` is the old key, its \`replacedBy\` the successor. ${KEY}`,
    data: 'ApiKey',
  },
  'key.revoked': {
    summary: 'A key was revoked',
    description: `A key was revoked, by the admin API or the CLI: once for each key a revocation ends, its successors included. ${KEY}`,
    data: 'ApiKey',
  },
  'key.expiring': {
    summary: 'A key expires soon',
    description: `A key’s expiry is 7 days away, then 1 day away (\`expiresWithin\`): each notice once, looked for every 10 minutes, again if the expiry changes; revoked and rotated keys get none. ${KEY}`,
    data: 'ExpiringApiKey',
  },
  'key.banned': {
    summary: 'A key was banned',
    description: `A key was banned for sending after 429 answers: its \`state\` is \`banned\`, until \`bannedUntil\`. ${KEY}`,
    data: 'ApiKey',
  },
  'key.usage_threshold': {
    summary: 'A key reached 80% or 100% of its day',
    description: `A request took a key’s day window to 80% or to 100% of its limit (\`usage\`): once each a day, across instances too; a rotated key shares its budget with the key before it. ${KEY}`,
    data: 'ApiKeyAtThreshold',
  },
  'domain.verified': {
    summary: 'A custom domain was verified',
    description: `A custom domain’s check moved it into \`verified\`. ${DOMAIN}`,
    data: 'Domain',
  },
  'domain.misconfigured': {
    summary: 'A custom domain is misconfigured',
    description: `A custom domain’s check moved it into \`misconfigured\` (\`reason\` says why, \`fix\` what to change). ${DOMAIN}`,
    data: 'Domain',
  },
  'domain.certificate_failed': {
    summary: 'A custom domain has no certificate',
    description: `A custom domain’s check moved it into \`certificate_failed\`. ${DOMAIN}`,
    data: 'Domain',
  },
  'domain.removed': {
    summary: 'A custom domain was removed',
    description: `A domain added through the admin API or the CLI was removed. ${DOMAIN.replace('shows it', 'showed it')}`,
    data: 'Domain',
  },
  'webhook.endpoint_disabled': {
    summary: 'A webhook endpoint was disabled',
    description:
      'An endpoint was disabled by its failures, and the other endpoints are told: by its id and host, never its ' +
      'URL, as they may be third parties’.',
    data: 'DisabledWebhookEndpoint',
  },
} as const satisfies Record<EventType, EventEntry>;

/** The `data` schema of events of type `T`. */
type EventData<T extends EventType> = (typeof EVENT_DATA_SCHEMAS)[(typeof EVENT_CATALOGUE)[T]['data']];

/** An event's id: `evt_` and 32 hex digits (src/webhooks/events.ts makes them). */
export const EventId = Type.String({
  pattern: '^evt_[0-9a-f]{32}$',
  description:
    'The event’s id: also the `webhook-id` of every attempt of it, so a receiver drops a repeat by it.',
  examples: ['evt_019ad2e8f3a0c4d1e2f3a4b5c6d7e8f9'],
});

/** The event of `type` whose `data` has the schema `data`: the body of every delivery of it. */
export function eventEnvelope<T extends EventType, D extends TSchema>(type: T, data: D) {
  return Type.Object(
    {
      id: EventId,
      type: Type.Literal(type),
      createdAt: Timestamp('When the change happened.'),
      apiVersion: Type.Literal(EVENT_API_VERSION, {
        description: 'The API version whose shapes `data` has: `/v1`’s and `/admin/v1`’s.',
      }),
      data,
    },
    { additionalProperties: false, description: `The body of a \`${type}\` delivery.` },
  );
}

/** The schema of events of type `T`. */
export type EventSchema<T extends EventType> = ReturnType<typeof eventEnvelope<T, EventData<T>>>;

/** Each event type's schema, envelope and `data`. */
export const EVENT_SCHEMAS = Object.fromEntries(
  EVENT_TYPES.map((type) => [type, eventEnvelope(type, EVENT_DATA_SCHEMAS[EVENT_CATALOGUE[type].data])]),
) as { [T in EventType]: EventSchema<T> };

/**
 * A test event's `data` (`POST /admin/v1/webhooks/{id}/test`): it says it is one, so a receiver acts on none
 * of it. Its `type` is one of the endpoint's, so it is no member of {@link WebhookEvent}'s narrowing.
 */
export const WebhookTestData = Type.Object(
  {
    test: Type.Literal(true),
    endpoint: WebhookParams.properties.id,
  },
  { additionalProperties: false, description: 'The `data` of a test event: which endpoint it was sent to.' },
);

/** A test event: the envelope, with any type of the catalogue and {@link WebhookTestData}. */
export const TestEvent = Type.Object(
  {
    ...eventEnvelope(EVENT_TYPES[0], WebhookTestData).properties,
    type: stringEnum(EVENT_TYPES, { description: 'One of the endpoint’s event types.' }),
  },
  {
    additionalProperties: false,
    description: 'The body of a test event: one of the endpoint’s types, and `data` that says it is a test.',
  },
);

export type WebhookTestData = Static<typeof WebhookTestData>;

/** An event as a delivery's body has it; `type` narrows `data`. */
export type WebhookEvent = { [T in EventType]: Static<EventSchema<T>> }[EventType];
