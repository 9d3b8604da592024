import { parse, serialize } from 'cookie';
import type { FastifyRequest } from 'fastify';
import { isLocalRequest } from '../health/index.js';
import { overHttps } from '../http/index.js';
import { SESSION_MAX_MS } from './sessions.js';

/**
 * The session cookie's names. Over HTTPS it has the `__Host-` prefix, which a browser accepts only with
 * `Secure`, `Path=/` and no `Domain`: no other host, subdomain or plain-HTTP page can set or shadow it.
 * Plain HTTP (allowed only from this machine) cannot carry that prefix.
 */
const SECURE_NAME = '__Host-petstore_session';
const PLAIN_NAME = 'petstore_session';

/** Whether a session may start here: over HTTPS, or over plain HTTP from this machine, not through a proxy. */
export function sessionTransportAllowed(request: FastifyRequest): boolean {
  return overHttps(request) || isLocalRequest(request);
}

/**
 * The header the console sends its session's second secret in, on every call: the cookie alone is refused
 * (`Sessions`). A custom header also makes any cross-origin request a preflighted one, which we never allow.
 */
export const SESSION_HEADER = 'x-petstore-session';

/**
 * The header the console marks its background refreshes with (a page polling while nobody uses it): they do
 * not count as activity, so an unattended screen ends its session at the idle limit.
 */
export const BACKGROUND_HEADER = 'x-petstore-background';

/** The session cookie's value a request sent, under the name its transport uses; undefined without one. */
export function sessionCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  return parse(header)[overHttps(request) ? SECURE_NAME : PLAIN_NAME];
}

/** The session's second secret a request sent in `X-Petstore-Session`; undefined without one. */
export function sessionSecret(request: FastifyRequest): string | undefined {
  const value = request.headers[SESSION_HEADER];
  return typeof value === 'string' ? value : undefined;
}

/** Whether the console marked the request as a background refresh, which is not the person's activity. */
export const isBackgroundRefresh = (request: FastifyRequest) => request.headers[BACKGROUND_HEADER] === 'true';

/** The `Set-Cookie` that gives a browser its session: never readable by script, never sent cross-site. */
export function setSessionCookie(request: FastifyRequest, value: string): string {
  const secure = overHttps(request);
  return serialize(secure ? SECURE_NAME : PLAIN_NAME, value, {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    secure,
    maxAge: SESSION_MAX_MS / 1000,
  });
}

/** The `Set-Cookie` that makes a browser forget its session. */
export function clearSessionCookie(request: FastifyRequest): string {
  const secure = overHttps(request);
  return serialize(secure ? SECURE_NAME : PLAIN_NAME, '', {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    secure,
    expires: new Date(0),
  });
}

/**
 * Whether a request comes from a page of this very origin, as a browser says: `Sec-Fetch-Site:
 * same-origin` or, from a browser without it, an `Origin` that is ours. A request that says neither is
 * refused: every browser sends one of them with a request that changes something.
 */
export function fromSameOrigin(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  const origin = request.headers.origin;
  const host = request.headers.host;
  if (origin === undefined || host === undefined) return false;
  return origin === `${overHttps(request) ? 'https' : 'http'}://${host}`;
}
