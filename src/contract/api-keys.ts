import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ADMIN_BODY_ERRORS, type AdminOperation } from './admin-operation.js';
import { stringEnum } from './enum.js';
import { Name, OrNull, Timestamp, TimestampInput } from './fields.js';
import { KeyId, PlanSchema, ScopesSchema } from './keys.js';

// The admin API's API keys: their schemas and operations (docs/keys-and-admin-api.md).

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

export const KeyParams = Type.Object({ id: KeyId }, { additionalProperties: false });

export const KEY_SCHEMAS = {
  NewApiKey,
  ApiKeyChange,
  Rotation,
  ApiKey,
  ApiKeyCreated,
  RevokedApiKey,
} satisfies Record<string, TSchema>;

export const KEY_PARAMETERS = { KeyParams } satisfies Record<string, TSchema>;

export const KEY_OPERATIONS = [
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
    errors: ADMIN_BODY_ERRORS,
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
    errors: [...ADMIN_BODY_ERRORS, 404, 409],
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
    errors: [...ADMIN_BODY_ERRORS, 404, 409],
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
] as const satisfies readonly AdminOperation<keyof typeof KEY_SCHEMAS, keyof typeof KEY_PARAMETERS>[];

export type NewApiKey = Static<typeof NewApiKey>;
export type ApiKeyChange = Static<typeof ApiKeyChange>;
export type Rotation = Static<typeof Rotation>;
export type ApiKey = Static<typeof ApiKey>;
