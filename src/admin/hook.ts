import type { FastifyInstance } from 'fastify';
import { sendError } from '../http/index.js';
import { bearerToken } from '../keys/index.js';
import type { AdminAuthenticator } from './authenticator.js';
import type { AdminTokenRecord } from './tokens.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The admin token of a request to the admin API, or null when it has none that is valid. */
    adminToken: AdminTokenRecord | null;
    /** Why a request to the admin API has no valid token: none was sent, or the one sent was refused. */
    adminTokenProblem: 'missing' | 'invalid' | null;
  }
}

/** RFC 6750 section 3, in a realm of its own: an API key is not an admin token. */
const MISSING_CHALLENGE = { 'www-authenticate': 'Bearer realm="petstore-admin"' } as const;
const INVALID_CHALLENGE = {
  'www-authenticate': 'Bearer realm="petstore-admin", error="invalid_token"',
} as const;

/** Identifies the admin token of every request of the scope; answers nothing, so the limiter counts first. */
export function identifyAdmin(app: FastifyInstance, authenticator: AdminAuthenticator): void {
  app.decorateRequest('adminToken', null);
  app.decorateRequest('adminTokenProblem', null);
  app.addHook('onRequest', (request, _reply, done) => {
    const token = bearerToken(request.headers.authorization);
    if (token === undefined) {
      request.adminTokenProblem = 'missing';
      return done();
    }
    const identify = (record: AdminTokenRecord | undefined) => {
      if (record !== undefined) request.adminToken = record;
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

/** Refuses every request of the scope without a valid admin token with 401. */
export function requireAdmin(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.adminToken !== null) done();
    else if (request.adminTokenProblem === 'invalid') {
      sendError(request, reply, 'invalid_api_key', 'The admin token is not valid', INVALID_CHALLENGE);
    } else {
      const message = 'An admin token is required: send Authorization: Bearer <ADMIN_TOKEN>';
      sendError(request, reply, 'missing_api_key', message, MISSING_CHALLENGE);
    }
  });
}
