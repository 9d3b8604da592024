import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { stringEnum } from './enum.js';
import { OrNull, Timestamp, TimestampInput } from './fields.js';
import { KeyId, PlanSchema, ScopesSchema } from './keys.js';
import type { Operation } from './operations.js';
import { AdminLoggedRequest, RequestParams, RequestQuery } from './requests.js';
import type { Role } from './roles.js';
import { ACTOR_KINDS, ROLES } from './roles.js';
import { ErrorSchema, NoQuery } from './schemas.js';
import {
  DeliveryParams,
  DeliveryQuery,
  DeliveryReplay,
  NewWebhook,
  ReplayCount,
  Webhook,
  WebhookChange,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookParams,
  WebhookTest,
  WebhookTestSent,
  WebhookWithSecret,
} from './webhooks.js';

/** The admin API's base path: outside `/v1`, versioned on its own. */
export const ADMIN_PREFIX = '/admin/v1';

/** How many audit events one request lists, by default and at most: the CLI's `audit list` pages the same. */
export const AUDIT_PAGE = { default: 100, max: 1000 } as const;

/** Key names: 1 to 100 characters; control characters are refused with a message of their own. */
const Name = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'A name for people, 1 to 100 characters.',
});
const Limit = (window: string) =>
  Type.Integer({
    minimum: 1,
    maximum: 1_000_000_000,
    description: `Requests per UTC ${window}: enterprise keys only, with the other limit (a day at least a minute).`,
  });

export const NewApiKey = Type.Object(
  {
    plan: PlanSchema,
    name: Type.Optional(Name),
    perMinute: Type.Optional(Limit('minute')),
    perDay: Type.Optional(Limit('day')),
    expiresAt: Type.Optional(TimestampInput('When the key stops working; in the future. Omitted: never.')),
    scopes: Type.Optional(ScopesSchema),
  },
  { additionalProperties: false, description: 'A key to create. Unknown fields are refused.' },
);

export const ApiKeyChange = Type.Object(
  {
    name: Type.Optional(Name),
    plan: Type.Optional(PlanSchema),
    perMinute: Type.Optional(Limit('minute')),
    perDay: Type.Optional(Limit('day')),
    scopes: Type.Optional(ScopesSchema),
    expiresAt: Type.Optional(
      Type.Union([TimestampInput('A new expiry, in the future.'), Type.Null()], {
        description: 'null: never expires.',
      }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      'The fields to change; the others stay. A plan other than enterprise drops the key’s own limits; ' +
      'enterprise needs both.',
  },
);

export const Rotation = Type.Object(
  {
    gracePeriodSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 30 * 86_400,
        default: 0,
        description: 'How long the old key keeps working, up to 30 days; 0 (the default): it stops at once.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** An API key as the admin API shows it: never the key, never its digest. */
export const ApiKey = Type.Object(
  {
    id: KeyId,
    name: Type.String(),
    plan: PlanSchema,
    limits: OrNull(
      Type.Object(
        { perMinute: Type.Integer({ minimum: 1 }), perDay: Type.Integer({ minimum: 1 }) },
        { additionalProperties: false },
      ),
    ),
    effectiveLimits: Type.Object(
      { perMinute: Type.Integer({ minimum: 0 }), perDay: Type.Integer({ minimum: 0 }) },
      {
        additionalProperties: false,
        description: 'The limits its requests meet: its plan’s, or its own for enterprise.',
      },
    ),
    scopes: ScopesSchema,
    prefix: Type.String({ description: 'The first characters of the key, to tell keys apart.' }),
    env: stringEnum(['production', 'staging'] as const),
    state: stringEnum(['active', 'expired', 'revoked', 'banned'] as const, {
      description: 'What a request with the key meets now.',
    }),
    createdAt: Timestamp('When the key was made.'),
    expiresAt: OrNull(Timestamp('When the key stops working.')),
    revokedAt: OrNull(Timestamp('When the key was revoked.')),
    replacedBy: OrNull(KeyId),
    bannedUntil: OrNull(Timestamp('When its ban ends.')),
    lastUsedAt: OrNull(Timestamp('Its last request (to within a few seconds).')),
  },
  { additionalProperties: false, description: 'An API key.' },
);

export const RevokedApiKey = Type.Object(
  {
    ...ApiKey.properties,
    successorsRevoked: Type.Array(KeyId, {
      description:
        'The keys rotated from it (its successor, that one’s successor, and so on), revoked with it, in the ' +
        'order they were made.',
    }),
  },
  { additionalProperties: false, description: 'An API key revoked, with its successors revoked with it.' },
);

export const ApiKeyCreated = Type.Object(
  {
    ...ApiKey.properties,
    key: Type.String({ description: 'The key itself: shown this once, never stored.' }),
  },
  { additionalProperties: false, description: 'A new API key, with the key itself.' },
);

export const AuditEvent = Type.Object(
  {
    id: Type.Integer({
      minimum: 1,
      description: 'Increasing: events are listed in the order they happened.',
    }),
    at: Timestamp('When it happened.'),
    actor: Type.String({
      description:
        'Who did it: an admin token id, a person’s id (`per_…`, signed in with OpenID Connect), `cli` for the command line, `config` for the config file, `checker` ' +
        'for the re-checks of domains, or an API key id for a key that rotated or revoked itself (`/v1/key`).',
    }),
    actorKind: stringEnum(ACTOR_KINDS, {
      description:
        'What kind of actor: `token` (an admin token), `person` (signed in with OpenID Connect), `key` (an API key), `cli`, or `system` (`config`, ' +
        '`checker`, `webhooks`).',
    }),
    actorName: OrNull(
      Type.String({
        description:
          'The name of the admin token that did it (a revoked one too), or of the person (their name, else ' +
          'their email), for people to read; null for the other actors.',
      }),
    ),
    actorSubject: OrNull(
      Type.String({
        description: 'A person’s subject (`sub`) at their identity provider; null for the other actors.',
      }),
    ),
    actorEmail: OrNull(
      Type.String({ description: 'A person’s email at their last sign-in; null for the other actors.' }),
    ),
    action: Type.String({
      description: 'What was done, such as `key.created` or `key.rotated`.',
      examples: ['key.created'],
    }),
    target: Type.String({ description: 'The id of the key or admin token it was done to.' }),
    details: Type.Record(Type.String(), Type.Unknown(), {
      description: 'What changed: plans, scopes, dates and ids; never a key or a token.',
    }),
  },
  { additionalProperties: false, description: 'One change to a key or an admin token.' },
);

const EventId = (description: string) =>
  Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description });

export const AuditQuery = Type.Object(
  {
    target: Type.Optional(
      Type.String({ minLength: 1, maxLength: 254, description: 'Only events of this key, token or domain.' }),
    ),
    actor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          'Only events of this actor: an admin token id, `cli`, `config`, `checker` or `webhooks`.',
      }),
    ),
    actorKind: Type.Optional(
      stringEnum(ACTOR_KINDS, { description: 'Only events of this kind of actor (`actorKind`).' }),
    ),
    format: Type.Optional(
      stringEnum(['ndjson', 'csv'] as const, {
        description:
          'Every event of the filter, streamed as NDJSON or CSV (`after`, `before` and `order` apply; ' +
          '`limit` does not), instead of a page.',
      }),
    ),
    from: Type.Optional(TimestampInput('Only events at or after this time.')),
    to: Type.Optional(TimestampInput('Only events before this time.')),
    order: Type.Optional(
      stringEnum(['asc', 'desc'] as const, {
        default: 'asc',
        description:
          '`asc` (the default): oldest first, paged with `after`; `desc`: newest first, paged with `before`.',
      }),
    ),
    after: Type.Optional(EventId('Only events after this id.')),
    before: Type.Optional(EventId('Only events before this id.')),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: AUDIT_PAGE.max,
        default: AUDIT_PAGE.default,
        description: `At most this many, 1 to ${AUDIT_PAGE.max}.`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const KeyParams = Type.Object({ id: KeyId }, { additionalProperties: false });

const AdminTokenId = Type.String({
  pattern: '^adm_[0-9A-Za-z]{12}$',
  maxLength: 16,
  description: 'The public id of an admin token, such as `adm_3fK9x2LmQ8aZ`: the actor of its changes.',
  examples: ['adm_3fK9x2LmQ8aZ'],
});

export const AdminTokenParams = Type.Object({ id: AdminTokenId }, { additionalProperties: false });

/** Who may make an admin token, as the audit's `actorKind` names them. */
const TOKEN_MAKERS = ['person', 'token', 'cli'] as const satisfies readonly (typeof ACTOR_KINDS)[number][];

/** What every view of an admin token says of it. */
const AdminTokenFields = {
  id: AdminTokenId,
  name: Type.String(),
  role: stringEnum(ROLES, { description: 'What it may do (the guide People and roles).' }),
  createdAt: Timestamp('When it was made.'),
};

export const AdminToken = Type.Object(
  {
    ...AdminTokenFields,
    prefix: Type.String({ description: 'The first characters of the token, to tell tokens apart.' }),
    revokedAt: OrNull(Timestamp('When it was revoked; every instance refuses it within 5 seconds.')),
    createdBy: OrNull(
      Type.Object(
        {
          kind: stringEnum(TOKEN_MAKERS, {
            description:
              '`person`: a person in their console session (signed in with OpenID Connect); `token`: an admin ' +
              'token, sent or of its console session; `cli`: the command line.',
          }),
          id: Type.String({
            description:
              'The person’s id (`per_…`), the token’s (`adm_…`) or `cli`: the actor of its `admin_token.created` audit entry.',
          }),
          name: OrNull(
            Type.String({
              description:
                'The person’s name (else their email, else their subject) or the token’s name; null for the command line.',
            }),
          ),
        },
        {
          additionalProperties: false,
          description:
            'Who made it. Null when that was not recorded: a token made by an instance of 1.3 during a rolling ' +
            'upgrade (with its command line).',
        },
      ),
    ),
  },
  { additionalProperties: false, description: 'An admin token; never the token itself after it is made.' },
);

export const AdminTokenCreated = Type.Composite(
  [
    AdminToken,
    Type.Object({
      token: Type.String({
        pattern: '^ps_admin_[0-9A-Za-z]{32}$',
        description: 'The token, shown this once: the service keeps only a hash of it.',
      }),
    }),
  ],
  { additionalProperties: false, description: 'An admin token just made, with the token itself.' },
);

export const NewAdminToken = Type.Object(
  {
    name: Type.Optional(Name),
    role: stringEnum(ROLES, { description: 'Its role: never above the role of whoever makes it.' }),
  },
  { additionalProperties: false },
);

const PersonId = Type.String({
  pattern: '^per_[0-9A-Za-z]{12}$',
  maxLength: 16,
  description:
    'The public id of a person who signs in with OpenID Connect, such as `per_7Hq2Lm9xKc3a`: the actor of their changes.',
  examples: ['per_7Hq2Lm9xKc3a'],
});

export const PersonParams = Type.Object({ id: PersonId }, { additionalProperties: false });

/** Who a person is, as their identity provider says. */
const PersonFields = {
  id: PersonId,
  subject: Type.String({
    description: 'The provider’s `sub`: the one thing about a person that never changes.',
  }),
  email: OrNull(Type.String({ description: 'The `email` claim at their last sign-in.' })),
  name: OrNull(Type.String({ description: 'The `name` claim at their last sign-in.' })),
};

/** A live admin token a person made, as the People operations show it. */
const PersonToken = Type.Object(
  {
    ...AdminTokenFields,
    through: OrNull(
      Type.Object(
        { id: AdminTokenId, name: Type.String() },
        {
          additionalProperties: false,
          description:
            'The token that made it: one the person made, or one made through theirs, however deep (revoked ' +
            'or not). Null when the person made it in their console session.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export const Person = Type.Object(
  {
    ...PersonFields,
    issuer: Type.String({ description: 'The identity provider (`OIDC_ISSUER`) that signed them in.' }),
    role: stringEnum(ROLES, {
      description: 'The role their groups gave them at their last sign-in (`OIDC_ROLES`).',
    }),
    firstSignInAt: Timestamp('Their first sign-in.'),
    lastSignInAt: Timestamp('Their last sign-in.'),
    sessions: Type.Integer({ minimum: 0, description: 'How many of their console sessions are live now.' }),
    tokens: Type.Array(PersonToken, {
      description:
        'The live admin tokens they made, oldest first: in their console session, or with a token they made ' +
        '(`through`), however deep. Removing them at the identity provider ends their sessions, not these.',
    }),
  },
  { additionalProperties: false, description: 'A person who signed in to the console with OpenID Connect.' },
);

export const PersonSessionsEnd = Type.Object(
  {
    revokeTokens: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Also revoke every live admin token they made (each of their `tokens`), in the same unit of work.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const PersonSessionsEnded = Type.Object(
  {
    ended: Type.Integer({ minimum: 0, description: 'How many live sessions ended.' }),
    revokedTokens: Type.Array(Type.Object(AdminTokenFields, { additionalProperties: false }), {
      description: 'The tokens revoked, oldest first; empty without `revokeTokens`.',
    }),
  },
  { additionalProperties: false },
);

export const Session = Type.Object(
  {
    tokenId: OrNull(
      Type.String({
        description:
          'The admin token it was made with: its changes are audited as that token’s. Null for a person’s session.',
      }),
    ),
    tokenName: OrNull(Type.String()),
    person: OrNull(
      Type.Object(PersonFields, {
        additionalProperties: false,
        description:
          'The person it belongs to, signed in with OpenID Connect: their changes are audited as theirs. Null for a token’s session.',
      }),
    ),
    role: stringEnum(ROLES, {
      description:
        'What the session may do: its token’s role, or the role its person’s groups gave at sign-in.',
    }),
    operations: Type.Array(Type.String(), {
      description:
        'The admin operations (by `operationId`) the role allows: the console offers only these, and the ' +
        'API refuses the others anyway (403 `insufficient_role`).',
    }),
    createdAt: Timestamp('When it started.'),
    expiresAt: Timestamp('When it ends however busy it is: 12 hours after it started.'),
    idleExpiresAt: Timestamp('When it ends unless it makes a request first: 30 minutes after its last one.'),
  },
  {
    additionalProperties: false,
    description: 'A console session: the cookie that carries it is never shown.',
  },
);

export const SessionStarted = Type.Composite(
  [
    Session,
    Type.Object({
      secret: Type.String({
        pattern: '^pssh_[A-Za-z0-9_-]{43}$',
        description:
          'The session’s second secret, shown this once: send it as `X-Petstore-Session` with every request ' +
          'that carries the cookie. The cookie alone is refused (401): a cookie is not scoped by port, so any ' +
          'other server on this host that the browser visits receives it, while the console keeps this ' +
          'secret in its own tab’s storage.',
      }),
    }),
  ],
  {
    additionalProperties: false,
    description: 'A console session just started: its cookie is in `Set-Cookie`, its second secret here.',
  },
);

export const SessionStart = Type.Object(
  {
    token: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'The admin token, for a client that cannot set `Authorization`; the header is preferred.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'A sign-in with the token in the body. The body may be left out.',
  },
);

export const SessionEnd = Type.Object(
  { ended: Type.Boolean({ description: 'False when it had already ended.' }) },
  { additionalProperties: false, description: 'A session ended: its cookie is refused from now on.' },
);

/** How far back usage can be read: hourly counts are kept 90 days, daily ones for good (10 years a request). */
export const USAGE_SPAN = { hours: 90 * 24, days: 3660 } as const;

export const UsageQuery = Type.Object(
  {
    key: Type.Optional(KeyId),
    granularity: Type.Optional(
      stringEnum(['hour', 'day'] as const, {
        default: 'hour',
        description: '`hour` (the default; counts kept 90 days) or `day` (kept for good).',
      }),
    ),
    from: Type.Optional(
      TimestampInput('The first bucket holds this time. Default: 47 hours or 89 days before `to`.'),
    ),
    to: Type.Optional(TimestampInput('The last bucket holds this time. Default: now.')),
  },
  { additionalProperties: false },
);

const OutcomeCounts = {
  success: Type.Integer({ minimum: 0, description: '2xx and 3xx answers.' }),
  clientErrors: Type.Integer({ minimum: 0, description: '4xx answers other than 429.' }),
  rateLimited: Type.Integer({ minimum: 0, description: '429 answers.' }),
  serverErrors: Type.Integer({ minimum: 0, description: '5xx answers.' }),
};

export const UsageSeries = Type.Object(
  {
    key: OrNull(KeyId),
    granularity: stringEnum(['hour', 'day'] as const),
    from: Timestamp('The start of the first bucket.'),
    to: Timestamp('The end of the last bucket.'),
    buckets: Type.Array(
      Type.Object(
        { start: Timestamp('Where the bucket starts (UTC).'), ...OutcomeCounts },
        { additionalProperties: false },
      ),
      { description: 'Every bucket from `from` to `to`, oldest first, those without requests at 0.' },
    ),
  },
  {
    additionalProperties: false,
    description:
      'Answers by outcome, of one key or of every key summed, as stored by every instance (each flushes ' +
      'every few seconds) and as counted by this one.',
  },
);

export const KeyUsageQuery = Type.Object(
  {
    day: Type.Optional(
      Type.String({
        pattern: '^\\d{4}-\\d{2}-\\d{2}$',
        maxLength: 10,
        description: 'A UTC day, `YYYY-MM-DD`. Default: today.',
        examples: ['2027-01-31'],
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        default: 10,
        description: 'At most this many keys, 1 to 1000.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const KeyUsage = Type.Object(
  {
    keyId: KeyId,
    name: Type.String(),
    plan: PlanSchema,
    ...OutcomeCounts,
    used: Type.Integer({
      minimum: 0,
      description:
        'Today: the requests its day window holds, as the rate limiter counts them and the key’s own page ' +
        'shows them (shared with the keys a rotation links). An earlier day: the answers stored for it, ' +
        'all but the 429s.',
    }),
    perMinute: Type.Integer({ minimum: 0 }),
    perDay: Type.Integer({ minimum: 0 }),
    dayShare: Type.Number({ minimum: 0, description: '`used` / `perDay`: above 0.8 is near the limit.' }),
  },
  { additionalProperties: false, description: 'One key’s use on one day.' },
);

const DomainName = (description: string) =>
  Type.String({
    minLength: 3,
    maxLength: 254,
    pattern: '^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?\\.?$',
    description,
    examples: ['docs.example.com'],
  });

export const DomainParams = Type.Object(
  { name: DomainName('The domain, such as docs.example.com.') },
  { additionalProperties: false },
);

export const NewDomain = Type.Object(
  {
    name: DomainName('The domain or subdomain, such as docs.example.com.'),
    primary: Type.Optional(
      Type.Boolean({ description: 'Whether it is the primary domain (the one before it stops being so).' }),
    ),
    redirectTo: Type.Optional(DomainName('Send its requests to this domain instead of serving them.')),
    redirectStatus: Type.Optional(
      Type.Unsafe<301 | 302 | 307 | 308>({
        type: 'integer',
        enum: [301, 302, 307, 308],
        description: 'The redirect status: 301 (documented), 302, 307 or 308.',
      }),
    ),
  },
  { additionalProperties: false, description: 'A custom domain to add. Unknown fields are refused.' },
);

const DomainStateSchema = stringEnum(
  ['pending', 'verified', 'active', 'misconfigured', 'certificate_failed'] as const,
  { description: 'Where the domain stands: see [Custom domains](/docs/guides/custom-domains#states).' },
);

export const Domain = Type.Object(
  {
    name: Type.String(),
    source: stringEnum(['file', 'api'] as const, {
      description: '`file`: declared in the config file; `api`: added with the CLI or the admin API.',
    }),
    primary: Type.Boolean(),
    redirect: OrNull(
      Type.Object(
        { to: Type.String(), status: Type.Integer() },
        { additionalProperties: false, description: 'Where its requests are sent, with which status.' },
      ),
    ),
    state: DomainStateSchema,
    reason: Type.String({ description: 'Why it is in its state.' }),
    fix: OrNull(Type.String({ description: 'What its owner should change.' })),
    dns: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          type: stringEnum(['CNAME', 'TXT'] as const),
          value: Type.String(),
          required: Type.Boolean(),
        },
        { additionalProperties: false },
      ),
      { description: 'The records its owner adds at the DNS provider.' },
    ),
    addedAt: Timestamp('When it was added.'),
    stateSince: Timestamp('When it entered its state.'),
    checkedAt: OrNull(Timestamp('Its last check.')),
    nextCheckAt: Timestamp('When it is checked next.'),
    lastCheck: OrNull(
      stringEnum(['passed', 'failed', 'could_not_check'] as const, {
        description: '`could_not_check`: the DNS server did not answer; that never counts as a failure.',
      }),
    ),
    certificate: OrNull(
      Type.Object(
        { issuer: Type.String(), expiresAt: Timestamp('When the certificate ends.') },
        {
          additionalProperties: false,
          description: 'The certificate the TLS front served at the last check.',
        },
      ),
    ),
  },
  { additionalProperties: false, description: 'A custom domain of the published reference.' },
);

export const DomainSettings = Type.Object(
  {
    target: OrNull(
      Type.String({
        description:
          '`DOMAINS_TARGET`: the name every custom domain’s CNAME points at. null: the operator has not set ' +
          'it, so no domain can be verified and only the ownership TXT record can be shown.',
        examples: ['edge.example.net'],
      }),
    ),
    requireTxt: Type.Boolean({
      description: '`DOMAINS_REQUIRE_TXT`: whether a domain needs its ownership TXT record to be verified.',
    }),
  },
  {
    additionalProperties: false,
    description: 'How custom domains are checked by this service, before any is added.',
  },
);

export const DomainRemoval = Type.Object(
  {
    name: Type.String(),
    dnsStillPointsHere: Type.Boolean({
      description: 'Whether its DNS still points here: its owner should remove the record.',
    }),
  },
  { additionalProperties: false, description: 'A removed domain: no longer served, no certificate issued.' },
);

export const ADMIN_SCHEMAS = {
  Person,
  PersonSessionsEnd,
  PersonSessionsEnded,
  AdminToken,
  AdminTokenCreated,
  NewAdminToken,
  NewApiKey,
  ApiKeyChange,
  Rotation,
  ApiKey,
  ApiKeyCreated,
  RevokedApiKey,
  AuditEvent,
  Session,
  SessionStarted,
  SessionStart,
  SessionEnd,
  UsageSeries,
  KeyUsage,
  NewDomain,
  Domain,
  DomainSettings,
  DomainRemoval,
  AdminLoggedRequest,
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
  Error: ErrorSchema,
} satisfies Record<string, TSchema>;
export type AdminSchemaName = keyof typeof ADMIN_SCHEMAS;

export const ADMIN_PARAMETER_SCHEMAS = {
  KeyParams,
  AdminTokenParams,
  PersonParams,
  DomainParams,
  AuditQuery,
  RequestQuery,
  RequestParams,
  UsageQuery,
  KeyUsageQuery,
  WebhookParams,
  DeliveryParams,
  DeliveryQuery,
  NoQuery,
} satisfies Record<string, TSchema>;
export type AdminParameterName = keyof typeof ADMIN_PARAMETER_SCHEMAS;

const BODY_ERRORS = [400, 413, 415] as const;

export const ADMIN_OPERATIONS = [
  {
    operationId: 'createApiKey',
    method: 'POST',
    path: '/keys',
    tag: 'Keys',
    role: 'admin',
    summary: 'Create an API key',
    description:
      'Makes a key and shows it once: only its digest is stored. Enterprise keys need `perMinute` and ' +
      '`perDay`; other plans refuse them. Without `scopes` the key has every scope.',
    requestBody: 'NewApiKey',
    success: { status: 201, description: 'The key, with the key itself.', schema: 'ApiKeyCreated' },
    errors: BODY_ERRORS,
  },
  {
    operationId: 'listApiKeys',
    method: 'GET',
    path: '/keys',
    tag: 'Keys',
    role: 'viewer',
    summary: 'List API keys',
    description: 'Every key, revoked and expired ones included, oldest first; never a key itself.',
    success: { status: 200, description: 'Every key.', schema: 'ApiKey', array: true },
    errors: [],
  },
  {
    operationId: 'getApiKey',
    method: 'GET',
    path: '/keys/{id}',
    tag: 'Keys',
    role: 'viewer',
    summary: 'Show an API key',
    description: 'One key, with its state, expiry, scopes, ban and last use.',
    params: 'KeyParams',
    success: { status: 200, description: 'The key.', schema: 'ApiKey' },
    errors: [400, 404],
  },
  {
    operationId: 'updateApiKey',
    method: 'PATCH',
    path: '/keys/{id}',
    tag: 'Keys',
    role: 'admin',
    summary: 'Change an API key',
    description:
      'Changes the name, plan, limits, scopes or expiry of a key that is not revoked. Every instance applies ' +
      'the change within 5 seconds. The plan and limits of a rotated key are those of its budget, which its ' +
      'successor now holds: changing them there is 409 `key_rotated`, naming the successor to change instead.',
    params: 'KeyParams',
    requestBody: 'ApiKeyChange',
    success: { status: 200, description: 'The key as it is now.', schema: 'ApiKey' },
    errors: [...BODY_ERRORS, 404, 409],
  },
  {
    operationId: 'rotateApiKey',
    method: 'POST',
    path: '/keys/{id}/rotate',
    tag: 'Keys',
    role: 'admin',
    summary: 'Rotate an API key',
    description:
      'Makes a new key with the same plan, limits and scopes, and shows it once. The old key keeps working ' +
      'for `gracePeriodSeconds`, then answers 401 `api_key_expired`. The two share one rate-limit budget and ' +
      "one ban: rotating never resets a quota or lifts a ban. The new key keeps the old one's expiry. A key is " +
      'rotated once: rotating it again (on any instance, even at the same moment) is 409 `key_rotated`, ' +
      'naming its successor; an expired key is 409 `key_expired`, a revoked one 409 `key_revoked`. The body ' +
      'may be left out.',
    params: 'KeyParams',
    requestBody: 'Rotation',
    optionalBody: true,
    success: { status: 201, description: 'The new key, with the key itself.', schema: 'ApiKeyCreated' },
    errors: [...BODY_ERRORS, 404, 409],
  },
  {
    operationId: 'revokeApiKey',
    method: 'POST',
    path: '/keys/{id}/revoke',
    tag: 'Keys',
    role: 'admin',
    summary: 'Revoke an API key',
    description:
      'Revokes the key and every key rotated from it, its successors (whoever holds a leaked key could have ' +
      'rotated it to a successor of their own), each audited. Every instance refuses them within 5 seconds. ' +
      'To end only a rotated key’s grace period, set its `expiresAt` to now instead. Revoking a revoked key ' +
      'revokes what it has not revoked yet and answers it. No body.',
    params: 'KeyParams',
    success: {
      status: 200,
      description: 'The revoked key, and the successors revoked with it.',
      schema: 'RevokedApiKey',
    },
    errors: [400, 404],
  },
  {
    operationId: 'unbanApiKey',
    method: 'POST',
    path: '/keys/{id}/unban',
    tag: 'Keys',
    role: 'support',
    summary: 'Lift the ban of an API key',
    description: 'Every instance admits the key again within 5 seconds; its windows keep their counts.',
    params: 'KeyParams',
    success: { status: 200, description: 'The key.', schema: 'ApiKey' },
    errors: [400, 404],
  },
  {
    operationId: 'listAdminTokens',
    method: 'GET',
    path: '/admin-tokens',
    tag: 'Admin tokens',
    role: 'viewer',
    summary: 'List admin tokens',
    description:
      'Every admin token, revoked ones included, oldest first, with its role; never a token itself.',
    success: { status: 200, description: 'Every admin token.', schema: 'AdminToken', array: true },
    errors: [],
  },
  {
    operationId: 'createAdminToken',
    method: 'POST',
    path: '/admin-tokens',
    tag: 'Admin tokens',
    role: 'owner',
    summary: 'Create an admin token',
    description:
      'Makes a token with a role and shows it once: only its digest is stored. Every instance accepts it at ' +
      'once. As `petstore admin-tokens create --role` does.',
    requestBody: 'NewAdminToken',
    success: { status: 201, description: 'The token, with the token itself.', schema: 'AdminTokenCreated' },
    errors: BODY_ERRORS,
  },
  {
    operationId: 'revokeAdminToken',
    method: 'POST',
    path: '/admin-tokens/{id}/revoke',
    tag: 'Admin tokens',
    role: 'owner',
    summary: 'Revoke an admin token',
    description:
      'Every instance refuses the token within 5 seconds, and every console session made with it ends. ' +
      'Revoking a revoked token changes nothing.',
    params: 'AdminTokenParams',
    success: { status: 200, description: 'The token, revoked.', schema: 'AdminToken' },
    errors: [400, 404],
  },
  {
    operationId: 'listPeople',
    method: 'GET',
    path: '/people',
    tag: 'People',
    role: 'owner',
    summary: 'List people',
    description:
      'Everyone who has signed in to the console with OpenID Connect, the latest sign-in first: when, with ' +
      'which role, how many sessions they have live, and the live admin tokens they made.',
    success: { status: 200, description: 'Every person.', schema: 'Person', array: true },
    errors: [],
  },
  {
    operationId: 'endPersonSessions',
    method: 'POST',
    path: '/people/{id}/end-sessions',
    tag: 'People',
    role: 'owner',
    summary: 'End a person’s sessions',
    description:
      'Ends every live console session of a person, on every instance at their next request. They can sign ' +
      'in again while their identity provider lets them: remove them there to keep them out. Admin tokens ' +
      'they made outlive both; with `{"revokeTokens": true}` every live one (their `tokens` in the list) is ' +
      'revoked too, in the same unit of work, each audited as `admin_token.revoked`: this instance refuses ' +
      'them at once, the others within 5 seconds. The body may be left out.',
    params: 'PersonParams',
    requestBody: 'PersonSessionsEnd',
    optionalBody: true,
    success: {
      status: 200,
      description: 'How many sessions ended, and the tokens revoked.',
      schema: 'PersonSessionsEnded',
    },
    errors: [...BODY_ERRORS, 404],
  },
  {
    operationId: 'listAuditEvents',
    method: 'GET',
    path: '/audit',
    tag: 'Audit',
    role: 'viewer',
    summary: 'List audit events',
    description:
      'The append-only record of every change to keys, admin tokens, sessions, domains and webhook endpoints: who (an admin ' +
      'token id, with its name in `actorName`, or `cli`), what and when, never a key or a token. Oldest first, ' +
      'paged with `after` (the last id seen); with `order=desc` newest first, paged with `before`. Filter by ' +
      '`target`, `actor` and time.',
    query: 'AuditQuery',
    exported: true,
    success: { status: 200, description: 'The events.', schema: 'AuditEvent', array: true },
    errors: [400],
  },
  {
    operationId: 'listRequests',
    method: 'GET',
    path: '/requests',
    tag: 'Requests',
    role: 'viewer',
    summary: 'Search the request log',
    description:
      'Every answered request of `/v1` and `/admin/v1`, newest first (docs/request-log.md): filter by key, ' +
      'status (`404` or `4xx`), error code, route, method, time, request id and client address, and by API: ' +
      '`api=v1` keeps the API’s traffic alone, `api=admin` the admin API’s (a console’s own calls among ' +
      'them), neither both; page with ' +
      'the `Link` header’s `cursor`, which stays put while new requests arrive. `format=ndjson` or ' +
      '`format=csv` streams every row of the filter instead of a page. A request shows once answered (on ' +
      'another instance within 2 seconds), for `REQUEST_LOG_DAYS` whole days. 404 `not_found` when the ' +
      'request log is off (`REQUEST_LOG=off`). A `viewer` sees `client` as null, and filtering by `client` ' +
      'needs `support` (403 `insufficient_role`).',
    query: 'RequestQuery',
    paged: true,
    exported: true,
    success: { status: 200, description: 'The requests.', schema: 'AdminLoggedRequest', array: true },
    errors: [400, 403, 404],
  },
  {
    operationId: 'getRequest',
    method: 'GET',
    path: '/requests/{requestId}',
    tag: 'Requests',
    role: 'viewer',
    summary: 'Show a logged request',
    description:
      'The request of an `X-Request-Id`, as a customer quotes it from an Error body. The ids the service ' +
      'makes are unique, and no client may send one in their shape; two clients may send the same id of ' +
      'their own, and then this is the newest (`GET /requests?requestId=` lists every match). 404 when no ' +
      'request of the kept days has it. A `viewer` sees `client` as null.',
    params: 'RequestParams',
    success: { status: 200, description: 'The request.', schema: 'AdminLoggedRequest' },
    errors: [400, 404],
  },
  {
    operationId: 'startSession',
    method: 'POST',
    path: '/sessions',
    tag: 'Sessions',
    role: 'viewer',
    summary: 'Sign in to the console',
    description:
      'Exchanges the admin token in `Authorization` for a console session, set as a cookie: `HttpOnly`, ' +
      '`SameSite=Strict`, `Path=/`, and over HTTPS (through the TLS front too) `Secure` with the `__Host-` ' +
      'prefix (`__Host-petstore_session`). Over plain HTTP (`petstore_session`) only from this machine: 403 ' +
      '`https_required` otherwise. A session ends 30 minutes after its last request, 12 hours after it ' +
      'started, when it signs out, and when its token is revoked; requests the console marks ' +
      '`X-Petstore-Background: true` (a page refreshing itself) do not count as activity. With the cookie ' +
      'and the answer’s `secret` in `X-Petstore-Session` (the cookie alone is 401), every admin operation ' +
      'acts as its token; one that changes something must come from a page of this origin (403 ' +
      '`cross_origin_request`). The token goes in `Authorization`, or in the body as `{"token"}`.',
    requestBody: 'SessionStart',
    optionalBody: true,
    success: {
      status: 201,
      description: 'The session and its second secret; its cookie is in `Set-Cookie`.',
      schema: 'SessionStarted',
    },
    errors: [403],
  },
  {
    operationId: 'getSession',
    method: 'GET',
    path: '/sessions/current',
    tag: 'Sessions',
    role: 'viewer',
    summary: 'Show the current console session',
    description:
      'The session of the cookie and `X-Petstore-Session` sent: 401 when it has ended, 404 for a request ' +
      'with a token instead.',
    success: { status: 200, description: 'The session.', schema: 'Session' },
    errors: [404],
  },
  {
    operationId: 'endSession',
    method: 'DELETE',
    path: '/sessions/current',
    tag: 'Sessions',
    role: 'viewer',
    summary: 'Sign out of the console',
    description: 'Ends the session of the cookie sent, on every instance at once, and clears the cookie.',
    success: { status: 200, description: 'The session ended.', schema: 'SessionEnd' },
    errors: [403, 404],
  },
  {
    operationId: 'getUsage',
    method: 'GET',
    path: '/usage',
    tag: 'Usage',
    role: 'viewer',
    summary: 'Usage over time',
    description:
      'Answers by outcome per hour (the last 48 hours by default; kept 90 days) or per day (the last 90 days ' +
      `by default; kept for good), of one key or of every key summed. At most ${USAGE_SPAN.hours} hourly or ` +
      `${USAGE_SPAN.days} daily buckets a request.`,
    query: 'UsageQuery',
    success: { status: 200, description: 'The series.', schema: 'UsageSeries' },
    errors: [400, 404],
  },
  {
    operationId: 'listKeyUsage',
    method: 'GET',
    path: '/usage/keys',
    tag: 'Usage',
    role: 'viewer',
    summary: 'The most used keys of a day',
    description:
      'The keys that answered requests on a UTC day (today by default), the most used first, with their ' +
      'limits and the share of their day window they used.',
    query: 'KeyUsageQuery',
    success: { status: 200, description: 'The keys.', schema: 'KeyUsage', array: true },
    errors: [400],
  },
  {
    operationId: 'listDomains',
    method: 'GET',
    path: '/domains',
    tag: 'Domains',
    role: 'viewer',
    summary: 'List custom domains',
    description: 'Every custom domain, those of the config file included, by name, with its state.',
    success: { status: 200, description: 'Every domain.', schema: 'Domain', array: true },
    errors: [],
  },
  {
    operationId: 'getDomainSettings',
    method: 'GET',
    path: '/domain-settings',
    tag: 'Domains',
    role: 'viewer',
    summary: 'Show how custom domains are checked',
    description:
      'The DNS target every custom domain points at (`DOMAINS_TARGET`, null when it is not set) and whether ' +
      'the ownership TXT record is required: what to tell a domain’s owner before it is added.',
    success: { status: 200, description: 'The settings.', schema: 'DomainSettings' },
    errors: [],
  },
  {
    operationId: 'addDomain',
    method: 'POST',
    path: '/domains',
    tag: 'Domains',
    role: 'admin',
    summary: 'Add a custom domain',
    description:
      'Adds a domain as `pending` and answers the DNS records its owner adds (a CNAME to the DNS target, ' +
      'and the ownership TXT record). Every instance re-checks it on its schedule; it is served, and gets ' +
      'a certificate, once verified.',
    requestBody: 'NewDomain',
    success: { status: 201, description: 'The domain.', schema: 'Domain' },
    errors: [...BODY_ERRORS, 409],
  },
  {
    operationId: 'getDomain',
    method: 'GET',
    path: '/domains/{name}',
    tag: 'Domains',
    role: 'viewer',
    summary: 'Show a custom domain',
    description: 'Its state, why, the fix, its DNS records, its certificate and its next check.',
    params: 'DomainParams',
    success: { status: 200, description: 'The domain.', schema: 'Domain' },
    errors: [400, 404],
  },
  {
    operationId: 'verifyDomain',
    method: 'POST',
    path: '/domains/{name}/verify',
    tag: 'Domains',
    role: 'admin',
    summary: 'Re-verify a custom domain',
    description:
      'Checks the domain now. One waiting for its certificate, or whose certificate failed, gets 30 new ' +
      'minutes, as a new attempt.',
    params: 'DomainParams',
    success: { status: 200, description: 'The domain after the check.', schema: 'Domain' },
    errors: [400, 404],
  },
  {
    operationId: 'removeDomain',
    method: 'DELETE',
    path: '/domains/{name}',
    tag: 'Domains',
    role: 'admin',
    summary: 'Remove a custom domain',
    description:
      'Every instance stops serving it and refuses certificates for it at once. Domains of the config ' +
      'file are removed there (409 here).',
    params: 'DomainParams',
    success: { status: 200, description: 'The removal.', schema: 'DomainRemoval' },
    errors: [400, 404, 409],
  },
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
    errors: [...BODY_ERRORS],
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
    errors: [...BODY_ERRORS, 404],
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
    errors: [...BODY_ERRORS, 404],
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
    errors: [...BODY_ERRORS, 404],
  },
] as const satisfies readonly (Operation<AdminSchemaName, AdminParameterName> & { role: Role })[];

export type AdminOperationId = (typeof ADMIN_OPERATIONS)[number]['operationId'];

export type NewApiKey = Static<typeof NewApiKey>;
export type NewAdminToken = Static<typeof NewAdminToken>;
export type AdminTokenView = Static<typeof AdminToken>;
export type PersonView = Static<typeof Person>;
export type PersonSessionsEnd = Static<typeof PersonSessionsEnd>;
export type PersonSessionsEndedView = Static<typeof PersonSessionsEnded>;
export type AdminTokenCreatedView = Static<typeof AdminTokenCreated>;
export type ApiKeyChange = Static<typeof ApiKeyChange>;
export type Rotation = Static<typeof Rotation>;
export type ApiKey = Static<typeof ApiKey>;
export type AuditEvent = Static<typeof AuditEvent>;
export type AuditQuery = Static<typeof AuditQuery>;
export type NewDomain = Static<typeof NewDomain>;
export type DomainSettings = Static<typeof DomainSettings>;
export type SessionStart = Static<typeof SessionStart>;
export type UsageQuery = Static<typeof UsageQuery>;
export type KeyUsageQuery = Static<typeof KeyUsageQuery>;
