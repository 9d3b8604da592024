import type { TSchema } from '@sinclair/typebox';
import { ERROR_CODES, ERROR_MEANING, ERROR_STATUS } from '../errors/index.js';
import type { ErrorStatus, Operation } from './operation.js';
import { IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_KEY_PATTERN } from './schemas.js';

/**
 * An API as the service serves it: where, its operations, and the schemas they name. `/v1` and the admin
 * API are two; one route registration and one document builder serve both.
 */
export interface ApiDescription {
  /** Where it is served, such as `/v1`. */
  prefix: string;
  operations: readonly Operation[];
  schemas: Readonly<Record<string, TSchema>>;
  /** Query strings and path parameters, inlined as parameters in the document. */
  parameters: Readonly<Record<string, TSchema>>;
}

export type Json = Record<string, unknown>;

/** How a document describes its operations. */
export interface DocumentParts {
  api: ApiDescription;
  /** The name of the security scheme every operation requires. */
  scheme: string;
  /** Error answers every operation can give. */
  commonErrors: readonly ErrorStatus[];
  /** Whether POSTs take `Idempotency-Key`. */
  idempotency: boolean;
  /** The dates of deprecated operations, and where their notice is. */
  deprecation?: { deprecatedAt: Date; sunsetAt: Date; link: string };
}

const ERROR_RESPONSES: Record<ErrorStatus, { name: string; description: string }> = {
  400: {
    name: 'BadRequest',
    description:
      'The request is invalid: a missing or invalid field or parameter, a query parameter the operation does ' +
      'not list, or malformed JSON.',
  },
  401: { name: 'Unauthorized', description: 'The credential is missing, invalid or expired.' },
  403: {
    name: 'Forbidden',
    description: 'The API key lacks the scope the operation needs (`WWW-Authenticate` names it).',
  },
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
  429: { name: 'TooManyRequests', description: 'The rate limit is exhausted or the credential is banned.' },
  500: { name: 'InternalError', description: 'An unexpected error occurred on the server.' },
  503: { name: 'ServiceUnavailable', description: 'A backing service is unreachable.' },
};

export const ref = (kind: 'schemas' | 'responses' | 'headers' | 'parameters', name: string): Json => ({
  $ref: `#/components/${kind}/${name}`,
});

export const day = (date: Date) => date.toISOString().slice(0, 10);

/** The environment an instance serves (`PETSTORE_ENV`): it decides which keys it takes. */
export type ServerEnvironment = 'production' | 'staging';

/**
 * A server of a document. `x-internal: false` says its audience is whoever reads the reference, as the
 * service publishes both documents at `/docs`; the description names its environment (both are what the
 * OWASP ruleset's inventory rules ask of every server).
 */
export const serverObject = (url: string, description: string): Json => ({
  url,
  description,
  'x-internal': false,
});

/** The one server of a document that names no URL: the origin it was fetched from, in its environment. */
export const thisServer = (url: string, environment: ServerEnvironment): Json =>
  serverObject(url, `This server (${environment})`);

/** The error table of DESIGN.md section 3, as Markdown for a document's description. */
export function errorTable(): string {
  const rows = ERROR_CODES.map((code) => `| \`${code}\` | ${ERROR_STATUS[code]} | ${ERROR_MEANING[code]} |`);
  return ['| code | status | meaning |', '|---|---|---|', ...rows].join('\n');
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
  403: { 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') },
  409: { 'Retry-After': ref('headers', 'Retry-After') },
  429: { 'Retry-After': ref('headers', 'Retry-After') },
};

/** OpenAPI parameters from the schema of a query string or of path parameters. */
function parametersOf(operation: Operation, schemas: ApiDescription['parameters']): Json[] {
  const parameters: Json[] = [];
  for (const [location, name] of [
    ['path', operation.params],
    ['query', operation.query],
  ] as const) {
    if (name === undefined) continue;
    const schema = schemas[name] as unknown as { properties: Record<string, Json>; required?: string[] };
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
function badges(operation: Operation, sunsetAt: Date | undefined): Json[] {
  if (operation.deprecated && sunsetAt !== undefined)
    return [{ name: `Sunset ${day(sunsetAt)}`, color: '#d41f1c' }];
  if (operation.stability === 'beta') return [{ name: 'Beta' }];
  if (operation.stability === 'experimental') return [{ name: 'Experimental', color: '#b35900' }];
  return [];
}

function descriptionOf(operation: Operation, parts: DocumentParts): string {
  const lines = [operation.description];
  if (operation.deprecated && parts.deprecation !== undefined) {
    const { deprecatedAt, sunsetAt, link } = parts.deprecation;
    lines.push(`**Deprecated** since ${day(deprecatedAt)}; sunset on ${day(sunsetAt)} ([notice](${link})).`);
  } else if (operation.stability) {
    lines.push(`Stability: **${operation.stability}**.`);
  }
  if (operation.scope !== undefined) lines.push(`Scope: \`${operation.scope}\`.`);
  if (operation.role !== undefined)
    lines.push(
      operation.role === 'viewer'
        ? 'Role: any (`viewer` and above).'
        : `Role: \`${operation.role}\`${operation.role === 'owner' ? '' : ' and above'}.`,
    );
  return lines.join('\n\n');
}

/** The OpenAPI operation object of an operation. */
export function operationObject(operation: Operation, parts: DocumentParts): Json {
  const successSchema = operation.success.array
    ? { type: 'array', items: ref('schemas', operation.success.schema) }
    : ref('schemas', operation.success.schema);
  const idempotent = parts.idempotency && operation.method === 'POST';
  const successHeaders: Json = { ...RESPONSE_HEADERS };
  if (operation.conditional) successHeaders.ETag = ref('headers', 'ETag');
  if (operation.paged) successHeaders.Link = ref('headers', 'NextPage');
  if (operation.deprecated) Object.assign(successHeaders, DEPRECATION_HEADERS);
  if (idempotent) successHeaders['Idempotent-Replayed'] = ref('headers', 'Idempotent-Replayed');

  const responses: Json = {
    [operation.success.status]: {
      description: operation.success.description,
      headers: successHeaders,
      content: {
        'application/json': { schema: successSchema },
        ...(operation.exported
          ? {
              'application/x-ndjson': {
                schema: { type: 'string', description: 'One JSON object per line, as the items above.' },
              },
              'text/csv': {
                schema: { type: 'string', description: 'A header row, then a row per item (RFC 4180).' },
              },
            }
          : {}),
      },
    },
  };
  if (operation.conditional) responses['304'] = ref('responses', 'NotModified');
  const errors = new Set([...operation.errors, ...parts.commonErrors]);
  if (operation.scope !== undefined) errors.add(403);
  if (operation.role !== undefined && operation.role !== 'viewer') errors.add(403);
  for (const status of [...errors].sort()) responses[status] = ref('responses', ERROR_RESPONSES[status].name);

  const parameters = parametersOf(operation, parts.api.parameters);
  if (operation.conditional) parameters.push(ref('parameters', 'IfNoneMatch'));
  if (idempotent) parameters.push(ref('parameters', 'IdempotencyKey'));
  const markers = badges(operation, parts.deprecation?.sunsetAt);

  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    description: descriptionOf(operation, parts),
    ...(operation.stability ? { 'x-stability': operation.stability } : {}),
    ...(markers.length > 0 ? { 'x-badges': markers } : {}),
    ...(operation.deprecated && parts.deprecation !== undefined
      ? { deprecated: true, 'x-sunset': day(parts.deprecation.sunsetAt) }
      : {}),
    ...(operation.countsAgainstQuota === false || operation.ownLimit !== undefined
      ? { 'x-counts-against-quota': false }
      : {}),
    ...(operation.ownLimit === undefined ? {} : { 'x-rate-limit': operation.ownLimit }),
    ...(operation.role !== undefined ? { 'x-petstore-role': operation.role } : {}),
    // RFC 6750 bearer tokens have no OpenAPI scopes of their own; the list names the role the key needs.
    security: [{ [parts.scheme]: operation.scope === undefined ? [] : [operation.scope] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.requestBody
      ? {
          requestBody: {
            required: operation.optionalBody !== true,
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

/** The reusable responses: one per error status, and the 304. */
function responseComponents(): Json {
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
  return responses;
}

/** The paths of a document: every operation, and beside every GET its HEAD. */
export function pathsOf(parts: DocumentParts): Json {
  const responses = responseComponents();
  const paths: Record<string, Json> = {};
  for (const operation of parts.api.operations) {
    const item = paths[operation.path] ?? {};
    item[operation.method.toLowerCase()] = operationObject(operation, parts);
    paths[operation.path] = item;
  }
  for (const [path, { get, ...others }] of Object.entries(paths)) {
    if (get !== undefined) paths[path] = { get, head: headOperation(get as Json, responses), ...others };
  }
  return paths;
}

/** The components every document shares, with its own schemas and security scheme. */
export function componentsOf(parts: DocumentParts, securityScheme: Json): Json {
  const all = responseComponents();
  // Only what the document refers to: an unused component is noise (and a lint warning).
  const referenced = JSON.stringify(pathsOf(parts));
  const responses = Object.fromEntries(
    Object.entries(all).filter(([name]) => referenced.includes(`#/components/responses/${name}"`)),
  );
  const parameters = Object.fromEntries(
    Object.entries(PARAMETERS).filter(([name]) => referenced.includes(`#/components/parameters/${name}"`)),
  );
  const headers = Object.fromEntries(
    Object.entries(HEADERS).filter(([name]) =>
      `${referenced}${JSON.stringify(responses)}`.includes(`#/components/headers/${name}"`),
    ),
  );
  return {
    securitySchemes: { [parts.scheme]: securityScheme },
    schemas: parts.api.schemas,
    ...(Object.keys(parameters).length > 0 ? { parameters } : {}),
    headers,
    responses,
  };
}

const PARAMETERS: Json = {
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
};

const HEADERS: Json = {
  'Idempotent-Replayed': {
    description:
      '`true` when the answer is the stored answer to an earlier request with this `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
  'X-Request-Id': {
    description: 'The id of this request: the one the client sent if it was sane, else a generated one.',
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
  NextPage: {
    description:
      'On a page that has more after it: `<path and query of the next page>; rel="next"` (RFC 8288, as ' +
      "GitHub's API does). Absent on the last page, and on the whole list.",
    schema: { type: 'string', examples: ['</v1/categories?limit=100&after=100>; rel="next"'] },
  },
  'Retry-After': {
    description: 'Whole seconds (at least 1) until the request may be sent again.',
    schema: { type: 'integer', minimum: 1 },
  },
  'WWW-Authenticate': {
    description:
      'RFC 6750 challenge: `Bearer realm="petstore"`, with `error="invalid_token"` for a refused credential ' +
      'and `error="insufficient_scope", scope="…"` for a key without the scope the operation needs.',
    schema: { type: 'string' },
  },
};
