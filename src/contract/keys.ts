import { type Static, Type } from '@sinclair/typebox';
import { stringEnum } from './enum.js';

/** The plans of the spec's rate-limit table (section 8). */
export const PLAN_NAMES = ['free', 'pro', 'business', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

/**
 * What an API key may do (DESIGN.md section 10): reading and writing each resource. A key has every scope
 * unless it was made with fewer; an operation names the one it needs.
 */
export const SCOPES = [
  'categories:read',
  'categories:write',
  'pets:read',
  'pets:write',
  'orders:read',
  'orders:write',
] as const;
export type Scope = (typeof SCOPES)[number];

/** An RFC 3339 date and time with its offset (`Date.parse` alone would take `2027-01-31` or `Jan 31`). */
export const DATE_TIME_PATTERN =
  '^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2})$';

const KEY_ID_PATTERN = '^key_[0-9A-Za-z]{12}$';
/** The length the pattern allows, stated as well: a longer value is refused before the pattern runs. */
const KEY_ID_LENGTH = 16;

export const KeyId = Type.String({
  pattern: KEY_ID_PATTERN,
  maxLength: KEY_ID_LENGTH,
  description: 'The public id of an API key, such as `key_3fK9x2LmQ8aZ`.',
  examples: ['key_3fK9x2LmQ8aZ'],
});

const Timestamp = (description: string) => Type.String({ format: 'date-time', description });
const OrNull = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const PlanSchema = stringEnum(PLAN_NAMES, {
  description: 'The plan, which sets the limits; enterprise keys carry their own.',
});

export const ScopesSchema = Type.Array(stringEnum(SCOPES), {
  minItems: 1,
  // Each scope once: no list is longer than the scopes there are.
  maxItems: SCOPES.length,
  uniqueItems: true,
  description: 'What the key may do. Every scope when the key was made without a list.',
  examples: [['categories:read', 'pets:read']],
});

/** One window of the limits, as the rate-limit headers describe it. */
const Window = Type.Object(
  {
    limit: Type.Integer({ minimum: 0, description: 'Requests allowed in the window.' }),
    remaining: Type.Integer({ minimum: 0, description: 'Requests left in the window; never below 0.' }),
    reset: Type.Integer({ minimum: 0, description: 'When the window resets, in Unix seconds.' }),
  },
  { additionalProperties: false },
);

/** The answers of one UTC day, by outcome. */
export const UsageDay = Type.Object(
  {
    day: Type.String({ format: 'date', description: 'The UTC day, as YYYY-MM-DD.' }),
    success: Type.Integer({ minimum: 0, description: 'Answered 2xx (and 3xx, a 304 among them).' }),
    clientErrors: Type.Integer({ minimum: 0, description: 'Answered 4xx other than 429.' }),
    rateLimited: Type.Integer({ minimum: 0, description: 'Answered 429.' }),
    serverErrors: Type.Integer({ minimum: 0, description: 'Answered 5xx.' }),
  },
  { additionalProperties: false },
);

/** `GET /v1/key`: the calling key, as it stands now. */
export const KeyInfo = Type.Object(
  {
    id: KeyId,
    name: Type.String({ description: 'The name the key was given.' }),
    plan: PlanSchema,
    scopes: ScopesSchema,
    createdAt: Timestamp('When the key was made.'),
    expiresAt: OrNull(Timestamp('When the key stops working (401 `api_key_expired`); null: never.')),
    limits: Type.Object(
      { minute: Window, day: Window },
      {
        additionalProperties: false,
        description: 'Both windows, as of this request (which counts for nothing).',
      },
    ),
    ban: Type.Object(
      {
        banned: Type.Boolean(),
        until: OrNull(Timestamp('When the ban ends.')),
      },
      { additionalProperties: false },
    ),
    usage: Type.Array(UsageDay, { description: 'The last 7 UTC days, oldest first, today last.' }),
    lastUsedAt: OrNull(Timestamp('The last request the key made (to within a few seconds).')),
    replacedBy: OrNull(
      Type.String({
        pattern: KEY_ID_PATTERN,
        description:
          'The key that replaced it by rotation, if it was rotated: revoking this key revokes that one too, ' +
          'and any key rotated from it.',
      }),
    ),
    deprecatedCalls: Type.Array(
      Type.Object(
        {
          operationId: Type.String(),
          method: Type.String(),
          path: Type.String({ description: 'Below the `/v1` base address.' }),
          calls: Type.Integer({ minimum: 1 }),
          lastCalledAt: Timestamp('The last call.'),
          sunsetAt: Type.String({ format: 'date', description: 'From this day the operation answers 410.' }),
        },
        { additionalProperties: false },
      ),
      { description: 'The deprecated operations this key has called, with their sunset dates.' },
    ),
  },
  { additionalProperties: false, description: 'The calling API key.' },
);

/** One bucket of a usage series: where it starts, and its answers by outcome. */
const UsageBucket = Type.Object(
  {
    start: Timestamp('Where the hour or the day starts (UTC).'),
    success: UsageDay.properties.success,
    clientErrors: UsageDay.properties.clientErrors,
    rateLimited: UsageDay.properties.rateLimited,
    serverErrors: UsageDay.properties.serverErrors,
  },
  { additionalProperties: false },
);

/** `GET /v1/key/usage`: the calling key's answers by hour and by day. */
export const KeyUsageHistory = Type.Object(
  {
    hours: Type.Array(UsageBucket, { description: 'The last 48 hours, oldest first, this hour last.' }),
    days: Type.Array(UsageBucket, { description: 'The last 30 UTC days, oldest first, today last.' }),
  },
  { additionalProperties: false, description: 'The calling key’s usage by outcome.' },
);

/** The grace a rotation leaves the old key: up to 30 days, as the admin API's. */
export const MAX_GRACE_SECONDS = 30 * 86_400;

export const KeyRotation = Type.Object(
  {
    gracePeriodSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_GRACE_SECONDS,
        default: 0,
        description:
          'How long the key keeps working beside its successor, up to 30 days (2592000); 0 (the default): ' +
          'it stops at once.',
        examples: [3600],
      }),
    ),
  },
  { additionalProperties: false, description: 'How to rotate the calling key. The body may be left out.' },
);

export const RotatedKey = Type.Object(
  {
    id: KeyId,
    key: Type.String({ description: 'The new key itself: shown this once, never stored.' }),
    name: Type.String(),
    plan: PlanSchema,
    scopes: ScopesSchema,
    createdAt: Timestamp('When the new key was made.'),
    expiresAt: OrNull(Timestamp('When the new key stops working: the old key’s expiry; null: never.')),
    replaces: KeyId,
    replacedKeyExpiresAt: Timestamp('When the old key stops working: now plus the grace period.'),
  },
  { additionalProperties: false, description: 'The calling key’s successor, with the key itself.' },
);

export const RevokedKey = Type.Object(
  {
    id: KeyId,
    revokedAt: Timestamp('When it was revoked: every instance refuses it within 5 seconds.'),
    successorsRevoked: Type.Array(KeyId, {
      description:
        'The keys rotated from it (its successor, that one’s successor, and so on), revoked with it, in ' +
        'the order they were made.',
    }),
  },
  { additionalProperties: false, description: 'The calling key, revoked, with its successors.' },
);

export type KeyInfo = Static<typeof KeyInfo>;
export type KeyUsageHistory = Static<typeof KeyUsageHistory>;
export type KeyRotation = Static<typeof KeyRotation>;
export type RotatedKey = Static<typeof RotatedKey>;
export type RevokedKey = Static<typeof RevokedKey>;
export type UsageDay = Static<typeof UsageDay>;
