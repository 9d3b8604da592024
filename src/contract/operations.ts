import type { Scope } from './keys.js';
import type { Role } from './roles.js';
import type { ParameterSchemaName, SchemaName } from './schemas.js';

/** Statuses of error answers that the documents describe, each with a reusable response component. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 503;

/**
 * One operation of an API (`/v1`, or the admin API): the single description from which its OpenAPI
 * document, the route's validation and serialization, and the served route table are all derived. `S` and
 * `P` are the names of the API's body and parameter schemas.
 */
export interface Operation<S extends string = string, P extends string = string> {
  operationId: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path below the API's base address, in OpenAPI form (`/pets/{petId}`). */
  path: string;
  tag: string;
  summary: string;
  description: string;
  requestBody?: S;
  /** Query string parameters, validated and coerced. */
  query?: P;
  /** Path parameters, validated and coerced. */
  params?: P;
  /** The scope an API key needs for it (403 `insufficient_scope` without); none: any valid key. */
  scope?: Scope;
  /** The least role an admin token or a person needs for it (403 `insufficient_role` without); admin only. */
  role?: Role;
  /** False when a call counts against no rate limit (reading one's own key); it still gets the headers. */
  countsAgainstQuota?: false;
  /**
   * A limit of its own instead of the key's plan: `requestLogReads` for reading the request log. Its
   * rate-limit headers describe that limit (`x-rate-limit` in the document).
   */
  ownLimit?: 'requestLogReads';
  /** The body may be left out (its fields all have defaults). */
  optionalBody?: true;
  /** Stability marker (spec section 9), `x-stability` in the document. */
  stability?: 'beta' | 'experimental';
  /** Deprecated, with the sunset date of the configuration (`x-sunset`) and the deprecation headers. */
  deprecated?: true;
  success: { status: 200 | 201; description: string; schema: S; array?: boolean };
  /** The list supports `If-None-Match` and answers 304 with its `ETag`. */
  conditional?: boolean;
  /** The list pages on `limit` and `after` (or a `cursor`), with `Link: <…>; rel="next"` while more remain. */
  paged?: true;
  /** The list is also exported whole with `format=ndjson` or `format=csv`, streamed. */
  exported?: true;
  /** Error answers beyond those every operation can give (`COMMON_ERRORS`: 400, 401, 429, 500, 503). */
  errors: readonly ErrorStatus[];
}

/**
 * Error statuses every operation can answer: 400 for a query parameter it does not list (or one given twice),
 * which every operation refuses; 503 when the shared rate-limit store is unreachable and the policy is to fail
 * closed (`RATE_LIMIT_FAIL=closed`).
 */
export const COMMON_ERRORS: readonly ErrorStatus[] = [400, 401, 429, 500, 503];

/**
 * Error statuses every POST can answer: a bad body, and an `Idempotency-Key` that is in use (409) or was
 * used with another request (422).
 */
const BODY_ERRORS: readonly ErrorStatus[] = [400, 409, 413, 415, 422];

export const OPERATIONS = [
  {
    operationId: 'listCategories',
    method: 'GET',
    path: '/categories',
    tag: 'Categories',
    scope: 'categories:read',
    summary: 'List categories',
    description:
      'Returns every category, in ascending `id` order. With `limit` or `after` it returns one page of them, ' +
      'and a `Link` to the next while more remain. The answer (each page too) carries a strong `ETag`; send ' +
      'it back in `If-None-Match` to get `304 Not Modified` while it is unchanged.',
    query: 'CategoryQuery',
    success: {
      status: 200,
      description: 'All categories (or one page of them), ascending by id.',
      schema: 'Category',
      array: true,
    },
    conditional: true,
    paged: true,
    errors: [400],
  },
  {
    operationId: 'createCategory',
    method: 'POST',
    path: '/categories',
    tag: 'Categories',
    scope: 'categories:write',
    summary: 'Create a category',
    description:
      'Creates a category and returns it with the `id` the service assigned. The answer is sent only after ' +
      'the category is durably stored. Names need not be unique.',
    requestBody: 'NewCategory',
    success: {
      status: 201,
      description: 'The created category, including its assigned id.',
      schema: 'Category',
    },
    errors: BODY_ERRORS,
  },
  {
    operationId: 'listPets',
    method: 'GET',
    path: '/pets',
    tag: 'Pets',
    scope: 'pets:read',
    summary: 'List pets',
    description:
      'Returns every pet, ascending by id, optionally only those of one category or in one status. With ' +
      '`limit` or `after` it returns one page of them, and a `Link` to the next while more remain.',
    query: 'PetQuery',
    stability: 'beta',
    paged: true,
    success: { status: 200, description: 'The matching pets, ascending by id.', schema: 'Pet', array: true },
    errors: [400],
  },
  {
    operationId: 'createPet',
    method: 'POST',
    path: '/pets',
    tag: 'Pets',
    scope: 'pets:write',
    summary: 'Add a pet',
    description:
      'Adds a pet to an existing category. `status` defaults to `available`. A `categoryId` that names no ' +
      'category is a 400 naming the field.',
    requestBody: 'NewPet',
    stability: 'beta',
    success: { status: 201, description: 'The created pet, including its assigned id.', schema: 'Pet' },
    errors: BODY_ERRORS,
  },
  {
    operationId: 'getPetById',
    method: 'GET',
    path: '/pets/{petId}',
    tag: 'Pets',
    scope: 'pets:read',
    summary: 'Find a pet by id (deprecated)',
    description:
      'Returns one pet. Deprecated: every answer carries `Deprecation`, `Sunset` and a `Link` to the ' +
      'deprecation notice; from the sunset date on, the endpoint answers 410 `endpoint_sunset`. Use ' +
      '`GET /pets` with filters instead.',
    params: 'PetParams',
    deprecated: true,
    success: { status: 200, description: 'The pet.', schema: 'Pet' },
    errors: [400, 404, 410],
  },
  {
    operationId: 'listOrders',
    method: 'GET',
    path: '/store/orders',
    tag: 'Store',
    scope: 'orders:read',
    summary: 'List orders',
    description:
      'Returns every order, newest first, optionally only those in one status. With `limit` or `after` it ' +
      'returns one page of them, and a `Link` to the next while more remain (`after` is an opaque cursor).',
    query: 'OrderQuery',
    stability: 'beta',
    paged: true,
    success: { status: 200, description: 'The matching orders, newest first.', schema: 'Order', array: true },
    errors: [400],
  },
  {
    operationId: 'placeOrder',
    method: 'POST',
    path: '/store/orders',
    tag: 'Store',
    scope: 'orders:write',
    summary: 'Place an order for a pet',
    description:
      'Orders an `available` pet and marks it `pending` in the same transaction: of two concurrent orders for ' +
      'one pet, exactly one succeeds. Ordering a pet that is not available is a 409 `pet_not_available`; a ' +
      '`petId` that names no pet is a 400 naming the field.',
    requestBody: 'NewOrder',
    stability: 'experimental',
    success: { status: 201, description: 'The placed order.', schema: 'Order' },
    errors: BODY_ERRORS,
  },
  {
    operationId: 'getKey',
    method: 'GET',
    path: '/key',
    tag: 'Keys',
    summary: 'Show the calling API key',
    description:
      'Returns the key that made the request: its plan, scopes and expiry, both rate-limit windows, any ban, ' +
      'the last 7 days of its usage and the deprecated operations it still calls, with their sunset dates. ' +
      'It needs no scope and counts against no limit: it answers even while the key is limited (not while ' +
      'it is banned), and its rate-limit headers describe the windows without spending them.',
    stability: 'beta',
    countsAgainstQuota: false,
    success: { status: 200, description: 'The calling key.', schema: 'KeyInfo' },
    errors: [],
  },
  {
    operationId: 'getKeyUsage',
    method: 'GET',
    path: '/key/usage',
    tag: 'Keys',
    summary: 'Show the calling API key’s usage',
    description:
      'Returns the answers the calling key got, by outcome, for each of the last 48 hours and of the last 30 ' +
      'UTC days (every hour and day present, 0 when it made no request). Like `GET /v1/key`, it needs no ' +
      'scope and counts against no limit.',
    stability: 'beta',
    countsAgainstQuota: false,
    success: { status: 200, description: 'The calling key’s usage.', schema: 'KeyUsageHistory' },
    errors: [],
  },
  {
    operationId: 'listKeyRequests',
    method: 'GET',
    path: '/key/requests',
    tag: 'Keys',
    summary: 'List the calling API key’s requests',
    description:
      'The calling key’s own requests from the request log, newest first: each with its request id, status, ' +
      'error code and message, duration and what was left of the minute window. Filter by status (`404` or ' +
      '`4xx`), error code, route, method, time and request id; page with the `Link` header’s `cursor`, which ' +
      'stays put while new requests arrive. A request shows here once answered (on another instance within ' +
      '2 seconds), and for `REQUEST_LOG_DAYS` whole days (7 by default). It needs no scope and spends none of ' +
      'the key’s plan: it has a limit of its own, 30 calls a minute and 2,000 a day per key by default ' +
      '(`requestLogReads` in the configuration file), which its rate-limit headers describe and a 429 ' +
      '`rate_limit_exceeded` enforces. 404 `not_found` when the operator turned the request log off.',
    stability: 'beta',
    ownLimit: 'requestLogReads',
    query: 'OwnRequestQuery',
    paged: true,
    success: {
      status: 200,
      description: 'The calling key’s requests.',
      schema: 'LoggedRequest',
      array: true,
    },
    errors: [400, 404],
  },
  {
    operationId: 'rotateKey',
    method: 'POST',
    path: '/key/rotate',
    tag: 'Keys',
    summary: 'Rotate the calling API key',
    description:
      'Makes a successor of the calling key with the same name, plan, limits, scopes and expiry, and shows ' +
      'it once. The calling key keeps working for `gracePeriodSeconds` (0 to 30 days, default 0), then ' +
      'answers 401 `api_key_expired`; the two share one rate-limit budget. A key is rotated once: rotating ' +
      'it again is 409 `key_rotated`, naming its successor. Only the calling key can be rotated, and the ' +
      'change is audited as made by that key. The body may be left out; an `Idempotency-Key` is read but ' +
      'never replays the answer, which holds a key (a retry is the 409 naming the successor).',
    stability: 'beta',
    requestBody: 'KeyRotation',
    optionalBody: true,
    success: { status: 201, description: 'The successor, with the key itself.', schema: 'RotatedKey' },
    errors: [400, 409, 413, 415],
  },
  {
    operationId: 'revokeKey',
    method: 'POST',
    path: '/key/revoke',
    tag: 'Keys',
    summary: 'Revoke the calling API key',
    description:
      'For a key that leaked: revokes the calling key at once, and every key rotated from it (whoever holds ' +
      'the leaked key could have rotated it to a successor of their own). This instance refuses them from the ' +
      'next request, every instance within 5 seconds (401 `invalid_api_key`). Audited as made by the key. ' +
      'No body (400 `validation_failed` for one).',
    stability: 'beta',
    success: { status: 200, description: 'The key, revoked.', schema: 'RevokedKey' },
    errors: [],
  },
] as const satisfies readonly Operation<SchemaName, ParameterSchemaName>[];

export type OperationId = (typeof OPERATIONS)[number]['operationId'];
