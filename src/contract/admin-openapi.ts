import { ADMIN_PREFIX } from './admin.js';
import { ADMIN_API } from './apis.js';
import {
  componentsOf,
  type DocumentParts,
  errorTable,
  type Json,
  pathsOf,
  ref,
  type ServerEnvironment,
  thisServer,
} from './document.js';
import { EVENT_TYPES, type EventType } from './event-types.js';
import { SCOPES } from './keys.js';
import { API_VERSION } from './openapi.js';
import { COMMON_ERRORS } from './operation.js';
import { ROLE_MEANING, ROLES } from './roles.js';
import { EVENT_CATALOGUE, EVENT_DATA_SCHEMAS, EVENT_SCHEMAS, EventId } from './webhook-events.js';

/** What the admin document prints of the configuration. */
export interface AdminDocumentOptions {
  /** The limits of each admin token. */
  rateLimit: { perMinute: number; perDay: number };
  /** The environment this instance serves, named by the document's server. */
  environment: ServerEnvironment;
}

const count = (value: number) => value.toLocaleString('en-US');

function description({ rateLimit }: AdminDocumentOptions): string {
  return `Manage the API keys of the [Pet Store API](/docs) from software: a signup flow that issues keys, a
dashboard that shows their use, a security process that rotates and expires them. The guide [Keys, the admin
API and the console](/docs/guides/keys-and-admin-api) tells the whole story, CLI and console included.

## Authentication
Every operation requires an admin token sent as a bearer token: \`Authorization: Bearer <ADMIN_TOKEN>\`.
Admin tokens (\`ps_admin_…\`) are made by an operator with \`petstore admin-tokens create\`, shown once and
stored only as a digest; \`petstore admin-tokens revoke <id>\` ends one within 5 seconds. A missing or
invalid token is answered with 401 and \`WWW-Authenticate: Bearer realm="petstore-admin"\`.

## Roles
Every admin token has a role (\`petstore admin-tokens create --role\`): ${ROLES.map((role) => `\`${role}\` (${ROLE_MEANING[role]})`).join('; ')}.
Each operation names the least role it needs, in its description and as \`x-petstore-role\`; a token without it
is answered 403 \`insufficient_role\`, and the refusal is audited as \`access.refused\`. The guide
[People and roles](/docs/guides/people-and-roles) has the whole table.

<!-- ReDoc-Inject: <security-definitions> -->

## Errors
Error answers have the API's body \`{code, message, status, requestId}\`; \`code\` is one of:

${errorTable()}

## Rate limits
Each admin token may send ${count(rateLimit.perMinute)} requests per UTC minute and ${count(rateLimit.perDay)}
per UTC day, with the API's headers (\`X-RateLimit-*\`, \`RateLimit\`, \`RateLimit-Policy\`); requests without
a valid token are limited per client address.`;
}

/** `order.placed` as `OrderPlaced`: the stem of its schema's name and its operationId. */
const pascal = (type: EventType) =>
  type
    .split(/[._]/)
    .map((word) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`)
    .join('');

/** The name of an event type's schema under `components.schemas`: `order.placed` is `OrderPlacedEvent`. */
const eventSchemaName = (type: EventType) => `${pascal(type)}Event`;

/** The Standard Webhooks headers every delivery carries, as parameters of each event. */
const DELIVERY_PARAMETERS: Json = {
  WebhookId: {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The event’s `id`, the same on every attempt of it: drop an event you have already handled.',
    schema: EventId,
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description:
      'When this attempt was signed, in Unix seconds (each attempt its own): refuse one more than five minutes off.',
    schema: { type: 'string', pattern: '^[0-9]+$', examples: ['1764374400'] },
  },
  WebhookSignature: {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Space-separated `v1,<base64>` signatures: HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`, keyed ' +
      'with the base64 after `whsec_` of the endpoint’s secret. One per secret: two during a rotation’s 24 ' +
      'hours, of which one matching is enough. Any Standard Webhooks library checks it.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
  },
};

/**
 * The events, in OpenAPI 3.1's `webhooks`: each type of the catalogue a POST of its event, with the signing
 * headers, and what the receiver's answer means. Each event's schema names its `data` by reference.
 */
function eventWebhooks(): Json {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => {
      const { summary, description } = EVENT_CATALOGUE[type];
      const operation = {
        operationId: `${pascal(type).charAt(0).toLowerCase()}${pascal(type).slice(1)}Event`,
        tags: ['Events'],
        summary,
        description,
        // Signed with the endpoint's secret (the headers below); no admin token is sent.
        security: [],
        parameters: Object.keys(DELIVERY_PARAMETERS).map((name) => ref('parameters', name)),
        requestBody: {
          required: true,
          content: { 'application/json': { schema: ref('schemas', eventSchemaName(type)) } },
        },
        responses: {
          '2XX': {
            description:
              'Delivered: any 2xx within 10 seconds. Answer at once and do the work after, or in a queue.',
          },
          '410': {
            description:
              'Gone: the endpoint is disabled, and nothing more is sent to it until it is enabled again.',
          },
          default: {
            description:
              'Anything else, or no answer within 10 seconds: the attempt failed, and the event is sent again ' +
              '(ten attempts over about three days; redirects are not followed).',
          },
        },
      };
      return [type, { post: operation }];
    }),
  );
}

/** The schemas the events name: each type's event, whose `data` refers to the schema of its data. */
function eventSchemas(): Json {
  const events = EVENT_TYPES.map((type) => {
    const schema = EVENT_SCHEMAS[type];
    const data = ref('schemas', EVENT_CATALOGUE[type].data);
    return [eventSchemaName(type), { ...schema, properties: { ...schema.properties, data } }];
  });
  return { ...EVENT_DATA_SCHEMAS, ...Object.fromEntries(events) };
}

/** Builds the OpenAPI 3.1 document of the admin API, served at `/admin/openapi.json`. */
export function buildAdminDocument(options: AdminDocumentOptions): Json {
  const parts: DocumentParts = {
    api: ADMIN_API,
    scheme: 'adminToken',
    commonErrors: COMMON_ERRORS,
    idempotency: false,
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Pet Store admin API',
      version: API_VERSION,
      description: description(options),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [thisServer(ADMIN_PREFIX, options.environment)],
    security: [{ adminToken: [] }],
    tags: [
      // What the introduction said of keys, audit and domains is said by their tags: Redoc lists a heading of the
      // introduction in its menu beside the tag of the same name, and the two read as one thing twice.
      {
        name: 'Keys',
        description: `API keys: create, show, change, rotate, revoke, unban.

A key is shown once, when it is created or rotated; every other answer shows its \`prefix\` only. Scopes:
${SCOPES.map((scope) => `\`${scope}\``).join(', ')} (every one when none are given). A key past \`expiresAt\` is
refused with 401 \`api_key_expired\`. Rotating makes a successor with the same plan, limits and scopes; the
old key works until its grace period ends, and the two share one rate-limit budget and one ban. Changes
reach every instance within 5 seconds.`,
      },
      {
        name: 'Audit',
        description: `The record of every change: each change to a key, an admin token, a session, a domain or a
webhook endpoint is recorded, append-only, with who made it (an admin token id and its name, or \`cli\`; the kind of
actor in \`actorKind\`), what and when, and so is every request refused for its role (\`access.refused\`); never a
key, a token, a signing secret or a URL's password. \`format=ndjson\` or \`format=csv\` exports a filtered view.`,
      },
      { name: 'Usage', description: 'Answers by outcome over time, and the most used keys of a day.' },
      {
        name: 'Requests',
        description: `The request log: a row per answered request of \`/v1\` and \`/admin/v1\`, kept \`REQUEST_LOG_DAYS\`
whole days (7 by default), searchable by key, status, error code, route, method, time, request id and client
address, exported as NDJSON or CSV; never a credential. See the guide, Request log.`,
      },
      {
        name: 'Domains',
        description: `The custom domains of the published reference.

The records a custom domain's owner adds name the service's DNS target (\`DOMAINS_TARGET\`); until the operator
sets it, no domain can be verified and only the ownership TXT record can be shown. \`GET /domain-settings\` says
which, before any domain is added.`,
      },
      {
        name: 'Admin tokens',
        description: `The tokens of this API, each with a role. A token is shown once, when it is made; an owner makes
and revokes them, here or with \`petstore admin-tokens\`.`,
      },
      {
        name: 'People',
        description: `The people who sign in to the console with OpenID Connect (\`OIDC_ISSUER\`): their role comes from
their groups at the provider (\`OIDC_ROLES\`), their changes are audited as theirs, and an owner can end their
sessions.`,
      },
      {
        name: 'Sessions',
        description:
          'The console’s sign-in: an admin token exchanged for a session cookie, or a person signed in with OpenID Connect at `/console/oidc/start`.',
      },
      {
        name: 'Webhooks',
        description: `Endpoints that events are POSTed to, signed per the Standard Webhooks specification, retried
for three days, with a delivery log and replay. A signing secret is shown once, when the endpoint is made or its
secret rotated. See the guide, Webhooks.`,
      },
      {
        name: 'Events',
        description: `What a webhook endpoint receives: a POST per event, whose body is \`{id, type, createdAt,
apiVersion, data}\` and whose \`type\` says what \`data\` is. Check the signature of the body as it arrived, then
parse it; delivery is at least once, so drop an event already handled by its \`id\`. A test event
(\`POST /webhooks/{id}/test\`) has one of the endpoint's types and \`data\` \`{"test": true, "endpoint": "<id>"}\`.
See the guide, [Webhooks](/docs/guides/webhooks#receiving-events).`,
      },
    ],
    paths: pathsOf(parts),
    webhooks: eventWebhooks(),
    components: withEvents(
      componentsOf(parts, {
        type: 'http',
        scheme: 'bearer',
        description: 'An admin token sent as `Authorization: Bearer <ADMIN_TOKEN>`.',
      }),
    ),
  };
}

/** The admin API's components, with what the events name: their schemas and the signing headers. */
function withEvents(components: Json): Json {
  return {
    ...components,
    schemas: { ...(components.schemas as Json), ...eventSchemas() },
    parameters: { ...(components.parameters as Json | undefined), ...DELIVERY_PARAMETERS },
  };
}
