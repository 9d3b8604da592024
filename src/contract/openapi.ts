import { ADMIN_PREFIX } from './admin.js';
import { API_PREFIX, V1_API } from './apis.js';
import {
  componentsOf,
  type DocumentParts,
  day,
  errorTable,
  type Json,
  pathsOf,
  type ServerEnvironment,
  serverObject,
  thisServer,
} from './document.js';
import { SCOPES } from './keys.js';
import { COMMON_ERRORS, type Operation } from './operation.js';
import { OPERATIONS } from './operations.js';
import { VERSIONING_POLICY } from './policy.js';
import { DEFAULT_PAGE_LIMIT, PAGE_LIMIT_MAX } from './schemas.js';

/** The version of the API description (spec section 9). */
export const API_VERSION = '1.4.0';

export interface DocumentOptions {
  /** The public base URLs the operator configured, each ending in `/v1`. */
  servers: { production: string | undefined; staging: string | undefined };
  /** The environment this instance serves, named by the server of a document without configured URLs. */
  environment: ServerEnvironment;
  /** The limits in force, for the document's rate-limit table. */
  rateLimit: RateLimitTable;
  /** The dates of the deprecated operations, and where their notice is. */
  deprecation: { deprecatedAt: Date; sunsetAt: Date; link: string };
  /** The changelog (CHANGELOG.md), shown in the reference; left out when it cannot be read. */
  changelog?: string | undefined;
  /** The guides beside the reference, listed in its introduction; none when left out. */
  guides?: readonly { title: string; url: string; summary: string }[];
}

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

const count = (value: number) => value.toLocaleString('en-US');

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

/** The changelog's releases, its own title left out and its headings put below the document's sections. */
function changelogSection(changelog: string | undefined): string {
  if (changelog === undefined) return '';
  const releases = changelog.slice(Math.max(0, changelog.indexOf('\n## '))).trim();
  return `\n\n## Changelog\n\n${releases.replace(/^(#{2,5}) /gm, '#$1 ')}`;
}

/** The guides' section of the introduction: a link and a line for each. */
function guidesSection(guides: DocumentOptions['guides']): string {
  if (guides === undefined || guides.length === 0) return '';
  return `\n\n## Guides\nHow to use the API and how to run the service, beside this reference:\n\n${guides
    .map((guide) => `- [${guide.title}](${guide.url}): ${guide.summary}`)
    .join('\n')}`;
}

function description(
  policy: RateLimitTable,
  deprecation: DocumentOptions['deprecation'],
  changelog: string | undefined,
  guides: DocumentOptions['guides'],
): string {
  const { plans, anonymous, ban } = policy;
  const row = (plan: string, limits: { perMinute: number; perDay: number }) =>
    `| ${plan} | ${count(limits.perMinute)} | ${count(limits.perDay)} |`;
  return `A pet store HTTP API with JSON bodies.

## Authentication
Every operation requires an API key sent as a bearer token: \`Authorization: Bearer <API_KEY>\`.
A missing or invalid key is answered with 401, an Error body and \`WWW-Authenticate: Bearer realm="petstore"\`;
a key past its expiry with 401 \`api_key_expired\`. \`GET /v1/key\` shows the calling key: its plan, scopes,
expiry, windows, ban and recent usage. Keys are made and managed by operators, with \`petstore keys\` or the
[admin API](/docs/admin) (\`${ADMIN_PREFIX}\`, its own document at \`/admin/openapi.json\`).

On this page, **Try it** beside each operation sends it to this server with your key, which stays in this
browser tab only; each operation has code samples in curl, JavaScript and Python. Your key's plan, limits and
usage, and its rotation or revocation, are on [your key's page](/docs/key).${guidesSection(guides)}

## Scopes
A key may do what its scopes allow: ${SCOPES.map((scope) => `\`${scope}\``).join(', ')}; every one unless it
was made with fewer. Each operation names the scope it needs (its \`security\` requirement lists it); a key
without it is answered 403 \`insufficient_scope\` with \`WWW-Authenticate: Bearer realm="petstore",
error="insufficient_scope", scope="…"\` (RFC 6750).

<!-- ReDoc-Inject: <security-definitions> -->

## Requests
- Bodies are JSON objects in UTF-8 (\`Content-Type: application/json\`, at most 16 KiB). Bytes that are not
  UTF-8 are refused with 400 \`malformed_json\`; unknown fields with 400 \`validation_failed\`.
- Every operation refuses a query parameter it does not list with 400 \`validation_failed\` naming it, and one
  given twice; filters never silently match everything because of a typo.
- Ids, in paths and in query strings, are whole numbers written in plain decimal digits: \`/pets/1\`, never
  \`/pets/01\`, \`/pets/1.0\` or \`/pets/1e0\` (400 \`validation_failed\`).
- Every \`GET\` also answers \`HEAD\`: the same status and headers, without the body.

## Pagination
The three lists answer the whole array unless asked for a page. With \`limit\` (1 to ${PAGE_LIMIT_MAX}) or \`after\`
(alone: ${DEFAULT_PAGE_LIMIT} items), the answer is one page, and while more remain it carries
\`Link: </v1/…?limit=…&after=…>; rel="next"\`: follow it until there is none. \`after\` is the last id of the page
before for categories and pets (ascending ids), an opaque cursor for orders (newest first); a row added
while you walk never makes you see another twice or miss one. Each page of categories has an \`ETag\` of its own.

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
${deprecationNotice(deprecation)}

## Versioning policy
${VERSIONING_POLICY}${changelogSection(changelog)}`;
}

/**
 * The document's servers: the configured production and staging URLs; with neither, `/v1` on the origin the
 * document was fetched from (OpenAPI 3.1 resolves a relative server URL against the document's own URL), so
 * a self-hosted service never points its users at a host it is not at.
 */
function serversOf(urls: DocumentOptions['servers'], environment: ServerEnvironment): Json[] {
  const servers: Json[] = [];
  if (urls.production !== undefined) servers.push(serverObject(urls.production, 'Production'));
  if (urls.staging !== undefined) servers.push(serverObject(urls.staging, 'Staging'));
  return servers.length > 0 ? servers : [thisServer(API_PREFIX, environment)];
}

/** Builds the OpenAPI 3.1 document served at `/openapi.json`: the contract of the API. */
export function buildOpenApiDocument(options: DocumentOptions): Json {
  const parts: DocumentParts = {
    api: V1_API,
    scheme: 'bearerAuth',
    commonErrors: COMMON_ERRORS,
    idempotency: true,
    deprecation: options.deprecation,
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Pet Store API',
      version: API_VERSION,
      description: description(options.rateLimit, options.deprecation, options.changelog, options.guides),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: serversOf(options.servers, options.environment),
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'Categories', description: 'Categories classify pets by species or breed.' },
      { name: 'Pets', description: 'The pets of the store.' },
      { name: 'Store', description: 'Orders for pets.' },
      { name: 'Keys', description: 'The API key making the request.' },
    ],
    paths: pathsOf(parts),
    components: componentsOf(parts, {
      type: 'http',
      scheme: 'bearer',
      description: 'An API key sent as `Authorization: Bearer <API_KEY>`.',
    }),
  };
}
