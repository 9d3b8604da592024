import { ERROR_CODES, ERROR_MEANING, ERROR_STATUS } from '../errors/index.js';
import { COMMON_ERRORS, type ErrorStatus, OPERATIONS, type Operation } from './operations.js';
import { IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_KEY_PATTERN, PARAMETER_SCHEMAS, SCHEMAS } from './schemas.js';

/** The version of the API description (spec section 9). */
export const API_VERSION = '1.0.0';

/** The path prefix that carries the major version (spec section 9). */
export const API_PREFIX = '/v1';

export interface DocumentOptions {
  /** The public base URLs the operator configured, each ending in `/v1`. */
  servers: { production: string | undefined; staging: string | undefined };
  /** The limits in force, for the document's rate-limit table. */
  rateLimit: RateLimitTable;
  /** The dates of the deprecated operations, and where their notice is. */
  deprecation: { deprecatedAt: Date; sunsetAt: Date; link: string };
}

type Json = Record<string, unknown>;

/** Requests per UTC minute and per UTC day. */
interface Quota {
  perMinute: number;
  perDay: number;
}

/** The limits the document prints: one quota per plan but enterprise, the anonymous one, and the ban. */
export interface RateLimitTable {
  plans: { free: Quota; pro: Quota; business: Quota };
  anonymous: Quota;
  ban: { after: number; durationMs: number };
}

const ERROR_RESPONSES: Record<ErrorStatus, { name: string; description: string }> = {
  400: {
    name: 'BadRequest',
    description: 'The request is invalid: a missing or invalid field, or malformed JSON.',
  },
  401: { name: 'Unauthorized', description: 'The API key is missing or invalid.' },
  404: { name: 'NotFound', description: 'The resource does not exist.' },
  409: {
    name: 'Conflict',
    description:
      'The request conflicts with the current state, or a request with the same `Idempotency-Key` is still ' +
      'in progress (retry after `Retry-After`).',
  },
  410: { name: 'Gone', description: 'The endpoint is past its sunset date.' },
  413: { name: 'PayloadTooLarge', description: 'The request body is larger than 16 KiB.' },
  415: { name: 'UnsupportedMediaType', description: 'The request body is not `application/json`.' },
  422: { name: 'UnprocessableContent', description: 'The idempotency key was reused with another body.' },
  429: { name: 'TooManyRequests', description: 'The rate limit is exhausted or the API key is banned.' },
  500: { name: 'InternalError', description: 'An unexpected error occurred on the server.' },
  503: { name: 'ServiceUnavailable', description: 'A backing service is unreachable.' },
};

const ref = (kind: 'schemas' | 'responses' | 'headers', name: string): Json => ({
  $ref: `#/components/${kind}/${name}`,
});

/** The error table of DESIGN.md section 3, as Markdown for the document's description. */
function errorTable(): string {
  const rows = ERROR_CODES.map((code) => `| \`${code}\` | ${ERROR_STATUS[code]} | ${ERROR_MEANING[code]} |`);
  return ['| code | status | meaning |', '|---|---|---|', ...rows].join('\n');
}

const count = (value: number) => value.toLocaleString('en-US');

const day = (date: Date) => date.toISOString().slice(0, 10);

/**
 * The deprecated operations and their dates, as Markdown. The deprecated operation's `Link` header points at
 * `…/docs#deprecations`, but Redoc names the heading's section `section/Deprecations`, so the section opens
 * with an anchor of that name.
 */
function deprecationNotice({ deprecatedAt, sunsetAt }: DocumentOptions['deprecation']): string {
  const rows = (OPERATIONS as readonly Operation[])
    .filter((operation) => operation.deprecated)
    .map(
      (operation) =>
        `- \`${operation.method} ${operation.path}\` (\`${operation.operationId}\`): deprecated since ` +
        `${day(deprecatedAt)}, sunset on ${day(sunsetAt)}.`,
    );
  return `<a id="deprecations"></a>

${rows.join('\n')}

Until its sunset date every answer of a deprecated operation carries \`Deprecation\` (RFC 9745), \`Sunset\`
(RFC 8594) and a \`Link\` to its deprecation notice with \`rel="deprecation"\`; from the sunset date on it
answers 410 \`endpoint_sunset\`.`;
}

function description(policy: RateLimitTable, deprecation: DocumentOptions['deprecation']): string {
  const { plans, anonymous, ban } = policy;
  const row = (plan: string, limits: { perMinute: number; perDay: number }) =>
    `| ${plan} | ${count(limits.perMinute)} | ${count(limits.perDay)} |`;
  return `A pet store HTTP API with JSON bodies.

## Authentication
Every operation requires an API key sent as a bearer token: \`Authorization: Bearer <API_KEY>\`.
A missing or invalid key is answered with 401, an Error body and \`WWW-Authenticate: Bearer realm="petstore"\`.

<!-- ReDoc-Inject: <security-definitions> -->

## Requests
- Bodies are JSON objects in UTF-8 (\`Content-Type: application/json\`, at most 16 KiB). Bytes that are not
  UTF-8 are refused with 400 \`malformed_json\`; unknown fields with 400 \`validation_failed\`.
- Every operation refuses a query parameter it does not list with 400 \`validation_failed\` naming it, and one
  given twice; filters never silently match everything because of a typo.
- Ids, in paths and in query strings, are whole numbers written in plain decimal digits: \`/pets/1\`, never
  \`/pets/01\`, \`/pets/1.0\` or \`/pets/1e0\` (400 \`validation_failed\`).
- Every \`GET\` also answers \`HEAD\`: the same status and headers, without the body.

## Errors
Every error answer has the body \`{code, message, status, requestId}\`; \`status\` equals the HTTP status
and \`code\` is one of:

${errorTable()}

Every response carries \`X-Request-Id\`; quote it when you report a problem.

## Rate limits
Each API key may send a number of requests per UTC minute and per UTC day, set by its plan:

| plan | per minute | per day |
|---|---|---|
${row('free', plans.free)}
${row('pro', plans.pro)}
${row('business', plans.business)}
| enterprise | agreed per key | agreed per key |

Requests without a valid key are limited per client address (${count(anonymous.perMinute)} per minute,
${count(anonymous.perDay)} per day). Every request
counts, whatever its answer; a request answered 429 counts for nothing. Every \`/v1\` response carries
\`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (Unix seconds) for the window
with the fewest requests left, and the IETF draft headers \`RateLimit-Policy\` and \`RateLimit\`.
Over the limit the answer is 429 \`rate_limit_exceeded\` with \`Retry-After\` in seconds: wait that long,
and back off exponentially if you are refused again. A key that sends ${ban.after} more requests while being
refused within one window is banned for ${Math.round(ban.durationMs / 60_000)} minutes (429 \`api_key_banned\`, \`Retry-After\` = time left). Fixed
windows admit at most the limit per window, so up to twice the limit in a 60 s span across a boundary.

## Deprecations
${deprecationNotice(deprecation)}`;
}

/** Headers on every response of an operation. */
const RESPONSE_HEADERS: Json = {
  'X-Request-Id': ref('headers', 'X-Request-Id'),
  'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
  'X-RateLimit-Reset': ref('headers', 'X-RateLimit-Reset'),
  RateLimit: ref('headers', 'RateLimit'),
  'RateLimit-Policy': ref('headers', 'RateLimit-Policy'),
};

/** Headers on every answer of a deprecated operation. */
const DEPRECATION_HEADERS: Json = {
  Deprecation: ref('headers', 'Deprecation'),
  Sunset: ref('headers', 'Sunset'),
  Link: ref('headers', 'Link'),
};

/** Headers that only some error answers carry. */
const ERROR_HEADERS: Partial<Record<ErrorStatus, Json>> = {
  401: { 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') },
  409: { 'Retry-After': ref('headers', 'Retry-After') },
  429: { 'Retry-After': ref('headers', 'Retry-After') },
};

/** OpenAPI parameters from the schema of a query string or of path parameters. */
function parametersOf(operation: Operation): Json[] {
  const parameters: Json[] = [];
  for (const [location, name] of [
    ['path', operation.params],
    ['query', operation.query],
  ] as const) {
    if (name === undefined) continue;
    const schema = PARAMETER_SCHEMAS[name] as { properties: Record<string, Json>; required?: string[] };
    for (const [parameter, property] of Object.entries(schema.properties)) {
      const { description, ...rest } = property;
      parameters.push({
        name: parameter,
        in: location,
        required: location === 'path' || (schema.required ?? []).includes(parameter),
        description,
        schema: rest,
      });
    }
  }
  return parameters;
}

/** Redoc's `x-badges`: the stability marker, or the sunset date of a deprecated operation. */
function badges(operation: Operation, sunsetAt: Date): Json[] {
  if (operation.deprecated) return [{ name: `Sunset ${day(sunsetAt)}`, color: '#d41f1c' }];
  if (operation.stability === 'beta') return [{ name: 'Beta' }];
  if (operation.stability === 'experimental') return [{ name: 'Experimental', color: '#b35900' }];
  return [];
}

function operationObject(operation: Operation, options: DocumentOptions): Json {
  const successSchema = operation.success.array
    ? { type: 'array', items: ref('schemas', operation.success.schema) }
    : ref('schemas', operation.success.schema);
  const successHeaders: Json = { ...RESPONSE_HEADERS };
  if (operation.conditional) successHeaders.ETag = ref('headers', 'ETag');
  if (operation.deprecated) Object.assign(successHeaders, DEPRECATION_HEADERS);
  if (operation.method === 'POST')
    successHeaders['Idempotent-Replayed'] = ref('headers', 'Idempotent-Replayed');

  const responses: Json = {
    [operation.success.status]: {
      description: operation.success.description,
      headers: successHeaders,
      content: { 'application/json': { schema: successSchema } },
    },
  };
  if (operation.conditional) responses['304'] = ref('responses', 'NotModified');
  for (const status of [...operation.errors, ...COMMON_ERRORS].sort()) {
    responses[status] = ref('responses', ERROR_RESPONSES[status].name);
  }

  const parameters = parametersOf(operation);
  if (operation.conditional) parameters.push({ $ref: '#/components/parameters/IfNoneMatch' });
  if (operation.method === 'POST') parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  const { deprecatedAt, sunsetAt, link } = options.deprecation;
  const markers = badges(operation, sunsetAt);

  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    description: operation.deprecated
      ? `${operation.description}\n\n**Deprecated** since ${day(deprecatedAt)}; sunset on ${day(sunsetAt)} ` +
        `([notice](${link})).`
      : operation.stability
        ? `${operation.description}\n\nStability: **${operation.stability}**.`
        : operation.description,
    ...(operation.stability ? { 'x-stability': operation.stability } : {}),
    ...(markers.length > 0 ? { 'x-badges': markers } : {}),
    ...(operation.deprecated ? { deprecated: true, 'x-sunset': day(sunsetAt) } : {}),
    security: [{ bearerAuth: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.requestBody
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('schemas', operation.requestBody) } },
          },
        }
      : {}),
    responses,
  };
}

/**
 * The `head` operation beside a `get` (RFC 9110 section 9.3.2): the same parameters, statuses and headers,
 * and no body in any answer.
 */
function headOperation(get: Json, components: Json): Json {
  const responses: Json = {};
  for (const [status, response] of Object.entries(get.responses as Record<string, Json>)) {
    const target = (
      typeof response.$ref === 'string' ? components[response.$ref.split('/').pop() as string] : response
    ) as Json;
    responses[status] = { description: target.description, headers: target.headers };
  }
  return {
    ...get,
    operationId: `${String(get.operationId)}Head`,
    summary: `${String(get.summary)}: headers only`,
    description: `The answer of \`GET\` without its body: the same status and headers, to check a validator, the rate-limit headers or a deprecation cheaply.\n\n${String(get.description)}`,
    responses,
  };
}

/**
 * The document's servers: the configured production and staging URLs; with neither, `/v1` on the origin the
 * document was fetched from (OpenAPI 3.1 resolves a relative server URL against the document's own URL), so
 * a self-hosted service never points its users at a host it is not at.
 */
function serversOf(urls: DocumentOptions['servers']): Json[] {
  const servers: Json[] = [];
  if (urls.production !== undefined) servers.push({ url: urls.production, description: 'Production' });
  if (urls.staging !== undefined) servers.push({ url: urls.staging, description: 'Staging' });
  return servers.length > 0 ? servers : [{ url: API_PREFIX, description: 'This server' }];
}

/** Builds the OpenAPI 3.1 document served at `/openapi.json`: the contract of the API. */
export function buildOpenApiDocument(options: DocumentOptions): Json {
  const responses: Json = {
    NotModified: {
      description: 'The list is unchanged since the `ETag` sent in `If-None-Match`.',
      headers: { ETag: ref('headers', 'ETag'), ...RESPONSE_HEADERS },
    },
  };
  for (const [status, { name, description }] of Object.entries(ERROR_RESPONSES)) {
    responses[name] = {
      description,
      headers: { ...RESPONSE_HEADERS, ...ERROR_HEADERS[Number(status) as ErrorStatus] },
      content: { 'application/json': { schema: ref('schemas', 'Error') } },
    };
  }

  const paths: Record<string, Json> = {};
  for (const operation of OPERATIONS) {
    const item = paths[operation.path] ?? {};
    item[operation.method.toLowerCase()] = operationObject(operation, options);
    paths[operation.path] = item;
  }
  // Every GET answers HEAD too, and says so where it is listed.
  for (const [path, { get, ...others }] of Object.entries(paths)) {
    if (get !== undefined) paths[path] = { get, head: headOperation(get as Json, responses), ...others };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Pet Store API',
      version: API_VERSION,
      description: description(options.rateLimit, options.deprecation),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: serversOf(options.servers),
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Categories', description: 'Categories classify pets by species or breed.' },
      { name: 'Pets', description: 'The pets of the store.' },
      { name: 'Store', description: 'Orders for pets.' },
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key sent as `Authorization: Bearer <API_KEY>`.',
        },
      },
      schemas: SCHEMAS,
      parameters: {
        IfNoneMatch: {
          name: 'If-None-Match',
          in: 'header',
          required: false,
          description: 'An `ETag` from an earlier answer; the service answers 304 if the list is unchanged.',
          schema: { type: 'string' },
        },
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Makes a retried create safe (IETF httpapi-idempotency-key draft). The first answer that created ' +
            'something is stored for 24 hours per API key and replayed, byte for byte, with ' +
            '`Idempotent-Replayed: true` to a request with the same key and body. The same key with another ' +
            'request: 422 `idempotency_key_reused`; while the first is still in progress: 409 ' +
            '`idempotency_key_in_use` with `Retry-After: 1`. Errors create nothing and are not stored. A value ' +
            'sent as a structured-field string (`"…"`) is taken without its quotes.',
          schema: {
            type: 'string',
            minLength: 1,
            maxLength: IDEMPOTENCY_KEY_MAX,
            pattern: IDEMPOTENCY_KEY_PATTERN,
          },
        },
      },
      headers: {
        'Idempotent-Replayed': {
          description:
            '`true` when the answer is the stored answer to an earlier request with this `Idempotency-Key`.',
          schema: { type: 'string', enum: ['true'] },
        },
        'X-Request-Id': {
          description:
            'The id of this request: the one the client sent if it was sane, else a generated one.',
          schema: { type: 'string' },
        },
        ETag: { description: 'A strong validator of the list.', schema: { type: 'string' } },
        'X-RateLimit-Limit': {
          description: 'Requests allowed in the binding window (the one with the fewest left).',
          schema: { type: 'integer', minimum: 0 },
        },
        'X-RateLimit-Remaining': {
          description: 'Requests left in the binding window; never below 0.',
          schema: { type: 'integer', minimum: 0 },
        },
        'X-RateLimit-Reset': {
          description: 'When the binding window resets, in Unix seconds.',
          schema: { type: 'integer', minimum: 0 },
        },
        RateLimit: {
          description:
            "IETF draft: the binding window's name, remaining requests (`r`) and seconds to reset (`t`).",
          schema: { type: 'string', examples: ['"minute";r=59;t=42'] },
        },
        'RateLimit-Policy': {
          description: 'IETF draft: both windows, with quota (`q`) and width in seconds (`w`).',
          schema: { type: 'string', examples: ['"minute";q=60;w=60, "day";q=1000;w=86400'] },
        },
        Deprecation: {
          description: 'RFC 9745: when the operation was deprecated, as `@<Unix seconds>`.',
          schema: { type: 'string', examples: ['@1793491200'] },
        },
        Sunset: {
          description: 'RFC 8594: when the operation stops answering, as an HTTP date.',
          schema: { type: 'string', examples: ['Wed, 30 Jun 2027 00:00:00 GMT'] },
        },
        Link: {
          description: 'The deprecation notice: `<url>; rel="deprecation"`.',
          schema: { type: 'string' },
        },
        'Retry-After': {
          description: 'Whole seconds (at least 1) until the request may be sent again.',
          schema: { type: 'integer', minimum: 1 },
        },
        'WWW-Authenticate': {
          description:
            'RFC 6750 challenge: `Bearer realm="petstore"`, with `error="invalid_token"` for a refused key.',
          schema: { type: 'string' },
        },
      },
      responses,
    },
  };
}
