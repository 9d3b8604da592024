import type { FastifyInstance, FastifyRequest } from 'fastify';
import { routeConfig, sendError } from '../http/index.js';
import { bearerToken, missingCredentialMessage } from '../keys/index.js';
import type { AdminTokenRecord } from './admin-tokens.js';
import { fromSameOrigin, isBackgroundRefresh, sessionCookie, sessionSecret } from './session-cookie.js';
import type { AdminPrincipal, Sessions, SessionView } from './sessions.js';
import type { AdminAuthenticator } from './token-authenticator.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Who makes a request to the admin API: its admin token, or the token or person of its console session;
     * null when it has no valid credential.
     */
    admin: AdminPrincipal | null;
    /**
     * Why a request to the admin API has no valid token: none was sent, the one sent was refused, or a session
     * cookie came without the session's second secret (`unbound`: from anything but the console's own page).
     */
    adminTokenProblem: 'missing' | 'invalid' | 'unbound' | null;
    /** The console session the request came with, when it sent its cookie instead of a token. */
    adminSession: { view: SessionView; digest: string } | null;
  }
}

/** RFC 6750 section 3, in a realm of its own: an API key is not an admin token. */
export const MISSING_CHALLENGE = { 'www-authenticate': 'Bearer realm="petstore-admin"' } as const;
export const INVALID_CHALLENGE = {
  'www-authenticate': 'Bearer realm="petstore-admin", error="invalid_token"',
} as const;

/**
 * Identifies the admin token of every request of the scope, sent in `Authorization` or, from the console, as
 * the token of a session cookie; answers nothing, so the limiter counts first.
 */
export function identifyAdmin(
  app: FastifyInstance,
  authenticator: AdminAuthenticator,
  sessions: Sessions,
): void {
  app.decorateRequest('admin', null);
  app.decorateRequest('adminTokenProblem', null);
  app.decorateRequest('adminSession', null);
  app.addHook('onRequest', (request, _reply, done) => {
    const token = bearerToken(request.headers.authorization);
    if (token === undefined) {
      const cookie = sessionCookie(request);
      if (cookie === undefined) {
        request.adminTokenProblem = 'missing';
        return done();
      }
      const secret = sessionSecret(request);
      if (secret === undefined) {
        request.adminTokenProblem = 'unbound';
        return done();
      }
      return void sessions.identify({ cookie, secret }, !isBackgroundRefresh(request)).then(
        (session) => {
          if (session === undefined) request.adminTokenProblem = 'invalid';
          else {
            request.admin = session.principal;
            request.adminSession = { view: session.view, digest: session.digest };
          }
          done();
        },
        (error: unknown) => done(error as Error),
      );
    }
    const identify = (record: AdminTokenRecord | undefined) => {
      if (record !== undefined) request.admin = record;
      else request.adminTokenProblem = 'invalid';
      done();
    };
    const found = authenticator.authenticate(token);
    // A token this server does not know may have been made a moment ago, by the CLI or on another server.
    const recheck = found === undefined ? authenticator.recheck(token) : undefined;
    if (recheck === undefined) identify(found);
    else
      recheck.then(
        () => identify(authenticator.authenticate(token)),
        () => identify(undefined),
      );
  });
}

const signsIn = (request: FastifyRequest) => routeConfig(request).operationId === 'startSession';

/** Methods that change nothing: a session may send them from anywhere its cookie goes (same-site only). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses every request of the scope without a valid admin token with 401, and a change made with a session
 * cookie from a page of another origin with 403: the cookie is `SameSite=Strict`, and this holds even for a
 * sibling subdomain, which counts as the same site.
 */
export function requireAdmin(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    // A sign-in may carry its token in the body, which is read after this hook: its handler checks it.
    // So may one from a browser that still holds an old session's cookie without its secret (a new tab).
    const problem = request.adminTokenProblem;
    if ((problem === 'missing' || problem === 'unbound') && signsIn(request)) return done();
    if (request.admin !== null) {
      if (request.adminSession === null || SAFE_METHODS.has(request.method) || fromSameOrigin(request))
        return done();
      const message = 'A change made with a console session must come from a page of this origin';
      sendError(request, reply, 'cross_origin_request', message);
    } else if (request.adminTokenProblem === 'unbound') {
      // A local program that received the cookie (cookies are not scoped by port) gets no further.
      const message =
        'A console session cookie is accepted only with its X-Petstore-Session header, which the console sends: sign in again in the console';
      sendError(request, reply, 'invalid_api_key', message, INVALID_CHALLENGE);
    } else if (request.adminTokenProblem === 'invalid') {
      const message =
        bearerToken(request.headers.authorization) === undefined
          ? 'The console session has ended: sign in again'
          : 'The admin token is not valid';
      sendError(request, reply, 'invalid_api_key', message, INVALID_CHALLENGE);
    } else {
      const message = missingCredentialMessage(
        request.headers.authorization,
        'an admin token',
        '<ADMIN_TOKEN>',
      );
      sendError(request, reply, 'missing_api_key', message, MISSING_CHALLENGE);
    }
  });
}
