import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** What a browser client may send beyond the CORS-safelisted headers. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-None-Match'];

/** Every answer header a client of the API reads, which script may only see when it is listed. */
const EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'ETag',
  'X-Request-Id',
  'Deprecation',
  'Sunset',
  'Link',
  'Idempotent-Replayed',
];

/** How long a browser may keep a preflight's answer, in seconds. */
export const PREFLIGHT_MAX_AGE = 600;

/**
 * CORS for browser clients of the listed origins (`CORS_ORIGINS`), with `@fastify/cors`, before every other
 * hook but the request id: a preflight is answered 204 here, so it needs no key and spends no quota. Keys
 * travel in `Authorization`, not cookies: no credentials mode. Origins not on the list get no CORS header.
 * Nothing is registered without origins: no CORS headers at all, and no cost.
 *
 * Only the paths `paths` names (the API and its documents; each a path or a prefix) get CORS: a page that
 * may read the API must not read what the service tells its own machine (`/metrics`, the TLS ask) or its
 * operators (the admin API). A preflight is an OPTIONS with `Access-Control-Request-Method` (Fetch
 * standard); any other OPTIONS is a request like any other, answered by the route.
 */
export async function registerCors(
  app: FastifyInstance,
  options: { origins: '*' | readonly string[]; paths: readonly string[] },
): Promise<void> {
  const { origins, paths } = options;
  if (origins !== '*' && origins.length === 0) return;
  const allowed = new Set(origins);
  const corsPath = (path: string) =>
    paths.some((prefix) => path === prefix || (path.startsWith(prefix) && path[prefix.length] === '/'));
  const granted: FastifyCorsOptions = {
    // `*` for any origin; else the caller's origin, once it is known to be listed.
    origin: origins === '*' ? '*' : true,
    methods: ['GET', 'HEAD', 'POST'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
    strictPreflight: false,
  };
  // `origin: false` turns the plugin off for the request: an origin not listed gets no CORS header at all.
  const refused: FastifyCorsOptions = { origin: false };
  await app.register(cors, {
    delegator(request, callback) {
      const origin = request.headers.origin;
      const listed = origins === '*' || (origin !== undefined && allowed.has(origin.toLowerCase()));
      const preflightOrNot =
        request.method !== 'OPTIONS' || request.headers['access-control-request-method'] !== undefined;
      const granting = listed && preflightOrNot && corsPath(request.url.split('?')[0] ?? '');
      callback(null, granting ? granted : refused);
    },
  });
}
