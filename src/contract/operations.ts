import type { ErrorStatus, Operation } from './operation.js';
import type { ParameterSchemaName, SchemaName } from './schemas.js';

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
