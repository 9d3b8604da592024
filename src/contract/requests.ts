import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { AdminOperation } from './admin-operation.js';
import { stringEnum } from './enum.js';
import { DATE_TIME_PATTERN, KeyId } from './keys.js';
import { REQUEST_ID_MAX, REQUEST_ID_PATTERN } from './request-id.js';

/** How many logged requests one page holds, by default and at most. */
export const REQUESTS_PAGE = { default: 50, max: 200 } as const;

const OrNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** The request log's row as both APIs show it (docs/request-log.md). */
export const LoggedRequest = Type.Object(
  {
    requestId: Type.String({ description: 'The `X-Request-Id` the client got, as Error bodies quote it.' }),
    at: Type.String({
      format: 'date-time',
      description: 'When it was answered, to the millisecond (it arrived `durationMs` before).',
    }),
    method: Type.String({ examples: ['GET'] }),
    path: Type.String({
      description: 'The path with its ids, without the query; anything shaped like a credential redacted.',
      examples: ['/v1/pets/42'],
    }),
    route: OrNull(
      Type.String({
        description: 'The operation’s path template; null for a path that is no route (a 404).',
        examples: ['/v1/pets/{petId}'],
      }),
    ),
    status: Type.Integer({ examples: [200] }),
    keyId: OrNull(Type.String({ description: 'The API key that asked; null for none or an unknown one.' })),
    client: OrNull(
      Type.String({ description: 'The client address (behind `TRUST_PROXY`, the forwarded one).' }),
    ),
    errorCode: OrNull(
      Type.String({ description: 'The Error body’s `code` of an answer that is not 2xx or 3xx.' }),
    ),
    errorMessage: OrNull(Type.String({ description: 'The Error body’s `message`.' })),
    durationMs: Type.Number({ description: 'From the request’s arrival to its answer, in milliseconds.' }),
    bytes: Type.Integer({ description: 'The bytes of the answer’s body.' }),
    rateLimitRemaining: OrNull(
      Type.Integer({ description: 'What the caller had left of its minute window after it.' }),
    ),
    replayed: Type.Boolean({ description: 'Answered from the stored answer of its `Idempotency-Key`.' }),
    deprecated: Type.Boolean({ description: 'Answered by a deprecated operation.' }),
    userAgent: OrNull(Type.String({ description: 'The `User-Agent`, cut to 256 characters.' })),
  },
  { additionalProperties: false, description: 'One answered request, as the request log keeps it.' },
);

/** The same row for the operator, with who answered it and the admin token that asked. */
export const AdminLoggedRequest = Type.Object(
  {
    ...LoggedRequest.properties,
    actor: OrNull(
      Type.String({ description: 'The admin token that asked, itself or through a console session.' }),
    ),
    instance: Type.String({ description: 'The instance that answered: its host name and process id.' }),
  },
  { additionalProperties: false, description: 'One answered request, as the request log keeps it.' },
);

/** The filters both APIs take. */
const filters = {
  status: Type.Optional(
    Type.String({
      pattern: '^[1-5](\\d\\d|xx)$',
      maxLength: 3,
      description: 'Only this status (`404`) or class of statuses (`4xx`).',
      examples: ['4xx'],
    }),
  ),
  code: Type.Optional(
    Type.String({
      pattern: '^[a-z_]{1,64}$',
      maxLength: 64,
      description: 'Only answers with this error code.',
      examples: ['rate_limited'],
    }),
  ),
  route: Type.Optional(
    Type.String({
      pattern: '^/[\\x21-\\x7e]{0,199}$',
      maxLength: 200,
      description: 'Only requests of this operation, by its path template.',
      examples: ['/v1/pets/{petId}'],
    }),
  ),
  method: Type.Optional(stringEnum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const)),
  from: Type.Optional(
    Type.String({
      pattern: DATE_TIME_PATTERN,
      maxLength: 40,
      format: 'date-time',
      description: 'Only requests at or after this time.',
    }),
  ),
  to: Type.Optional(
    Type.String({
      pattern: DATE_TIME_PATTERN,
      maxLength: 40,
      format: 'date-time',
      description: 'Only requests before this time.',
    }),
  ),
  requestId: Type.Optional(
    Type.String({
      pattern: REQUEST_ID_PATTERN,
      maxLength: REQUEST_ID_MAX,
      description: 'Only the request of this id (a client that sends its own ids may have several).',
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9_-]{1,300}$',
      maxLength: 300,
      description: 'Where the page before ended, from its `Link: <…>; rel="next"`.',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: REQUESTS_PAGE.max,
      default: REQUESTS_PAGE.default,
      description: `At most this many, 1 to ${REQUESTS_PAGE.max}.`,
    }),
  ),
};

export const OwnRequestQuery = Type.Object(filters, { additionalProperties: false });

export const RequestQuery = Type.Object(
  {
    key: Type.Optional(KeyId),
    client: Type.Optional(
      Type.String({
        pattern: '^[0-9A-Fa-f:.]{2,45}$',
        maxLength: 45,
        description: 'Only requests from this address.',
      }),
    ),
    api: Type.Optional(
      stringEnum(['v1', 'admin'] as const, {
        description:
          'Only the requests of one API, by the path asked for: `v1` the API’s (`/v1`), `admin` the admin ' +
          'API’s (`/admin/v1`, the console’s own calls among them, and those refused for want of a token).',
      }),
    ),
    ...filters,
    format: Type.Optional(
      stringEnum(['json', 'ndjson', 'csv'] as const, {
        default: 'json',
        description:
          '`json` (the default): a page. `ndjson` and `csv`: every row of the filter, newest first, streamed ' +
          '(`cursor` and `limit` do not apply).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const RequestParams = Type.Object(
  {
    requestId: Type.String({
      pattern: REQUEST_ID_PATTERN,
      maxLength: REQUEST_ID_MAX,
      description: 'The `X-Request-Id` of the request.',
    }),
  },
  { additionalProperties: false },
);

export const REQUEST_SCHEMAS = { AdminLoggedRequest } satisfies Record<string, TSchema>;

export const REQUEST_PARAMETERS = { RequestQuery, RequestParams } satisfies Record<string, TSchema>;

export const REQUEST_OPERATIONS = [
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
] as const satisfies readonly AdminOperation<keyof typeof REQUEST_SCHEMAS, keyof typeof REQUEST_PARAMETERS>[];

export type LoggedRequest = Static<typeof LoggedRequest>;
export type AdminLoggedRequest = Static<typeof AdminLoggedRequest>;
export type OwnRequestQuery = Static<typeof OwnRequestQuery>;
export type RequestQuery = Static<typeof RequestQuery>;
