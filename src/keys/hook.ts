import type { FastifyInstance } from 'fastify';
import { sendError } from '../http/index.js';
import type { ApiKeyRecord } from '../storage/index.js';
import type { Authenticator } from './authenticator.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated API key; set on every `/v1` request that got past authentication. */
    apiKey: ApiKeyRecord | null;
  }
}

/** RFC 6750: the scheme word is case-insensitive, followed by one or more spaces and the token. */
const BEARER = /^bearer +(\S*) *$/i;

/** RFC 6750 section 3: a challenge on every 401; `invalid_token` when a token was sent but refused. */
const MISSING_CHALLENGE = { 'www-authenticate': 'Bearer realm="petstore"' } as const;
const INVALID_CHALLENGE = { 'www-authenticate': 'Bearer realm="petstore", error="invalid_token"' } as const;

/** The bearer token of a request, or undefined when none was sent (no header, another scheme, empty). */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const token = BEARER.exec(header)?.[1];
  return token === undefined || token === '' ? undefined : token;
}

/**
 * Requires a valid API key on every route of the scope it is added to. Keys in the query string are
 * ignored. A refused key gets one code whatever the reason (unknown, revoked, malformed, other
 * environment), so the answer is no oracle for which part failed.
 */
export function registerAuthentication(app: FastifyInstance, authenticator: Authenticator): void {
  app.decorateRequest('apiKey', null);
  // A callback hook, not an async one: this runs on every request. Answering without calling done() ends it.
  app.addHook('onRequest', (request, reply, done) => {
    const token = bearerToken(request.headers.authorization);
    if (token === undefined) {
      sendError(
        request,
        reply,
        'missing_api_key',
        'An API key is required: send Authorization: Bearer <API_KEY>',
        MISSING_CHALLENGE,
      );
      return;
    }
    const result = authenticator.authenticate(token);
    if (!result.ok) {
      sendError(request, reply, 'invalid_api_key', 'The API key is not valid', INVALID_CHALLENGE);
      return;
    }
    request.apiKey = result.key;
    done();
  });
}
