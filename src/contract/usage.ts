import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { AdminOperation } from './admin-operation.js';
import { stringEnum } from './enum.js';
import { OrNull, Timestamp, TimestampInput } from './fields.js';
import { KeyId, PlanSchema } from './keys.js';

// The admin API's usage of keys: its schemas and operations.

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

export const USAGE_SCHEMAS = { UsageSeries, KeyUsage } satisfies Record<string, TSchema>;

export const USAGE_PARAMETERS = { UsageQuery, KeyUsageQuery } satisfies Record<string, TSchema>;

export const USAGE_OPERATIONS = [
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
] as const satisfies readonly AdminOperation<keyof typeof USAGE_SCHEMAS, keyof typeof USAGE_PARAMETERS>[];

export type UsageQuery = Static<typeof UsageQuery>;
export type KeyUsageQuery = Static<typeof KeyUsageQuery>;
