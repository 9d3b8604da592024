import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { AdminOperation } from './admin-operation.js';
import { stringEnum } from './enum.js';
import { OrNull, Timestamp, TimestampInput } from './fields.js';
import { ACTOR_KINDS } from './roles.js';

// The admin API's audit log: its schemas and its operation.

/** How many audit events one request lists, by default and at most: the CLI's `audit list` pages the same. */
export const AUDIT_PAGE = { default: 100, max: 1000 } as const;

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

export const AUDIT_SCHEMAS = { AuditEvent } satisfies Record<string, TSchema>;

export const AUDIT_PARAMETERS = { AuditQuery } satisfies Record<string, TSchema>;

export const AUDIT_OPERATIONS = [
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
] as const satisfies readonly AdminOperation<keyof typeof AUDIT_SCHEMAS, keyof typeof AUDIT_PARAMETERS>[];

export type AuditEvent = Static<typeof AuditEvent>;
export type AuditQuery = Static<typeof AuditQuery>;
