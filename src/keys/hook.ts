import { crc32 } from 'node:zlib';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Clock } from '../clock/index.js';
import type { Scope } from '../contract/index.js';
import { hookList, type RouteConfig, sendError } from '../http/index.js';
import type { Authentication, Authenticator } from './authenticator.js';
import { KEY_LENGTH, type KeyFault, keyFault } from './key-text.js';
import type { ApiKeyRecord, Environment } from './record.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated API key, or null when the request has none that is valid. */
    apiKey: ApiKeyRecord | null;
    /**
     * Why a request has no valid key: none was sent, the one sent was refused, it is a key of the other
     * environment, or it expired.
     */
    credentialProblem: 'missing' | 'invalid' | 'other_environment' | 'expired' | null;
    /** The key that was sent when it is one of ours but expired: its usage still counts. */
    expiredKey: ApiKeyRecord | null;
  }
}

/** RFC 6750 section 3: a challenge on every 401; `invalid_token` when a token was sent but refused. */
const MISSING_CHALLENGE = { 'www-authenticate': 'Bearer realm="petstore"' } as const;
const INVALID_CHALLENGE = { 'www-authenticate': 'Bearer realm="petstore", error="invalid_token"' } as const;
const EXPIRED_CHALLENGE = {
  'www-authenticate':
    'Bearer realm="petstore", error="invalid_token", error_description="The API key expired"',
} as const;

/**
 * The bearer token of a request, or undefined when none was sent (no header, another scheme, empty). RFC
 * 6750: the scheme word is case-insensitive and followed by spaces and the token. Parsed by hand in linear
 * time: a regular expression with adjacent variable-length runs backtracks on a header of many spaces.
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined || header.length < 8 || header.charCodeAt(6) !== 32) return undefined;
  if (!isBearerScheme(header)) return undefined;
  const token = header.slice(7).trim();
  return token === '' ? undefined : token;
}

/** Whether the first six characters spell `bearer` in any case, compared without making a new string. */
function isBearerScheme(header: string): boolean {
  for (let i = 0; i < 6; i += 1) {
    // ASCII letters: setting bit 0x20 lowers an upper-case letter and leaves a lower-case one.
    if ((header.charCodeAt(i) | 0x20) !== BEARER.charCodeAt(i)) return false;
  }
  return true;
}

const BEARER = 'bearer';

/**
 * Why a request carries no bearer credential, in words that say what to send: the header is missing, or it
 * holds a credential without the `Bearer` scheme (`Authorization: ps_live_…`), or another scheme (`Basic`).
 * `what` names the credential, `placeholder` stands for it: `An API key is required: send Authorization:
 * Bearer <API_KEY>`.
 */
export function missingCredentialMessage(
  header: string | undefined,
  what: string,
  placeholder: string,
): string {
  const send = `send Authorization: Bearer ${placeholder}`;
  const value = header?.trim() ?? '';
  if (value === '') return `${what[0]?.toUpperCase()}${what.slice(1)} is required: ${send}`;
  const scheme = value.split(/\s/, 1)[0] as string;
  if (scheme.toLowerCase() === BEARER)
    return `The Authorization header names no ${what.replace(/^an? /, '')}: ${send}`;
  if (value.length === scheme.length) {
    return `The Authorization header lacks its scheme, Bearer, before the credential: ${send}`;
  }
  // The scheme is named only when it is a plain word: never echo what may be a credential.
  const named = /^[A-Za-z][A-Za-z0-9-]{0,19}$/.test(scheme) ? ` ${scheme}` : '';
  return `The Authorization header uses the scheme${named}, not Bearer: ${send}`;
}

/** The words for a well-formed key (right shape and checksum) that is not one this service accepts. */
const NOT_VALID = 'The API key is not valid: it is unknown or was revoked';

const COPY_AGAIN = 'copy it again, whole, and send Authorization: Bearer <API_KEY>';

/** What a token that cannot be a key of any service of ours has wrong, said as its sender would fix it. */
const FAULTS: Record<Exclude<KeyFault, 'empty'>, (token: string) => string> = {
  admin_token: () =>
    'This is an admin token (ps_admin_…), not an API key: admin tokens are for the admin API (/admin/v1); /v1 takes an API key (ps_live_… or ps_test_…)',
  prefix: () =>
    `The API key looks mistyped or cut: an API key starts with ps_live_ (production) or ps_test_ (staging); ${COPY_AGAIN}`,
  length: (token) =>
    `The API key looks cut or mistyped: it has ${token.length} characters, and an API key has ${KEY_LENGTH}; ${COPY_AGAIN}`,
  characters: () =>
    `The API key holds a character no API key has (after ps_live_ or ps_test_, only letters and digits): it looks mistyped; ${COPY_AGAIN}`,
  checksum: () =>
    `The API key fails its checksum (its last 6 characters check the rest): a character was mistyped or changed; ${COPY_AGAIN}`,
};

/**
 * The 401 message of a bearer token that is no valid key of this environment. A token that cannot be a key
 * (a quote, a space or the word Bearer pasted with it, a character missing or changed) is told what to
 * check: its format and checksum are public, so anyone could learn as much offline. A well-formed key gets
 * one message whether it is unknown or revoked, so the answer is no oracle for the keys that exist.
 * Never echoes the token.
 */
export function invalidKeyMessage(token: string | undefined): string {
  if (token === undefined) return NOT_VALID;
  if (/^bearer\s/i.test(token))
    return 'The Authorization header says Bearer twice: send Authorization: Bearer <API_KEY>, with the word once';
  if (/^["'`]|["'`]$/.test(token))
    return 'The API key is in quotes: send it without them, as Authorization: Bearer <API_KEY>';
  if (/\s/.test(token)) return `The API key has a space inside it: send the key alone; ${COPY_AGAIN}`;
  const fault = keyFault(token, crc32);
  return fault === undefined || fault === 'empty' ? NOT_VALID : FAULTS[fault](token);
}

/**
 * Identifies the caller of every route in the scope: sets `request.apiKey`, or `request.credentialProblem`.
 * It answers nothing itself, so that the rate limiter can count the request (by key, or by address for
 * strangers) before `requireApiKey` refuses it. Keys in the query string are ignored.
 */
export function identifyCaller(
  app: FastifyInstance,
  deps: { authenticator: Authenticator; clock: Clock },
): void {
  const { authenticator, clock } = deps;
  app.decorateRequest('apiKey', null);
  app.decorateRequest('credentialProblem', null);
  app.decorateRequest('expiredKey', null);
  /** Marks the request with what authenticating its key found. */
  const identify = (request: FastifyRequest, result: Authentication) => {
    if (result.ok) {
      request.apiKey = result.key;
    } else if (result.reason === 'expired') {
      // Not valid, so counted by address like a stranger; but its use is the key's own.
      request.credentialProblem = 'expired';
      request.expiredKey = result.key;
    } else {
      request.credentialProblem = result.reason === 'other_environment' ? 'other_environment' : 'invalid';
    }
  };
  app.addHook('onRequest', (request, _reply, done) => {
    const token = bearerToken(request.headers.authorization);
    if (token === undefined) {
      request.credentialProblem = 'missing';
      return done();
    }
    const result = authenticator.authenticate(token, clock.now());
    // A well-formed key of ours this server does not know may have been made a moment ago, anywhere.
    const recheck = !result.ok && result.reason === 'unknown' ? authenticator.recheck(token) : undefined;
    if (recheck === undefined) {
      identify(request, result);
      return done();
    }
    recheck.then(
      () => {
        identify(request, authenticator.authenticate(token, clock.now()));
        done();
      },
      () => {
        // Storage did not answer: the key stays unknown, as it would have been without the recheck.
        identify(request, result);
        done();
      },
    );
  });
}

/** The words for a key of the other environment: its prefix says which it is, to anyone who reads it. */
const OTHER_ENVIRONMENT: Record<Environment, string> = {
  production:
    'The API key is a staging key (ps_test_) and this is the production API: use a production key (ps_live_)',
  staging:
    'The API key is a production key (ps_live_) and this is the staging API: use a staging key (ps_test_)',
};

/**
 * Refuses every request of the scope that has no valid key with 401. A refused key gets one code whatever
 * the reason (unknown, revoked, malformed, other environment), and a well-formed one the same words whether
 * unknown or revoked: the answer is no oracle for which keys exist. A malformed one is told what to check
 * (`invalidKeyMessage`), a key of the other environment that it is one, since its own prefix says it; an
 * expired key too, as only the holder of a real key of ours can learn it.
 */
export function requireApiKey(app: FastifyInstance, env: Environment): void {
  const otherEnvironment = OTHER_ENVIRONMENT[env];
  app.addHook('onRequest', (request, reply, done) => {
    if (request.apiKey !== null) {
      done();
    } else if (request.credentialProblem === 'invalid') {
      const message = invalidKeyMessage(bearerToken(request.headers.authorization));
      sendError(request, reply, 'invalid_api_key', message, INVALID_CHALLENGE);
    } else if (request.credentialProblem === 'other_environment') {
      sendError(request, reply, 'invalid_api_key', otherEnvironment, INVALID_CHALLENGE);
    } else if (request.credentialProblem === 'expired') {
      const at = request.expiredKey?.expiresAt ?? '';
      // Only a rotated key has a successor to use.
      const message =
        request.expiredKey?.replacedBy != null
          ? `The API key expired at ${at}, at the end of its rotation's grace period: use the key that replaced it`
          : `The API key expired at ${at}: ask for a new key`;
      sendError(request, reply, 'api_key_expired', message, EXPIRED_CHALLENGE);
    } else {
      const message = missingCredentialMessage(request.headers.authorization, 'an API key', '<API_KEY>');
      sendError(request, reply, 'missing_api_key', message, MISSING_CHALLENGE);
    }
  });
}

/** The 403 of RFC 6750 section 3.1: the challenge names the scope the operation needs. */
function scopeChallenge(scope: Scope): Readonly<Record<string, string>> {
  return { 'www-authenticate': `Bearer realm="petstore", error="insufficient_scope", scope="${scope}"` };
}

/**
 * Refuses a key without the scope its operation needs with 403 `insufficient_scope`. Wired onto each route
 * that names a scope as it is registered, after the scope's own hooks (so after `requireApiKey`): a route
 * without one pays nothing. Register in the scope before the operations.
 */
export function requireScope(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const scope = (route.config as RouteConfig | undefined)?.scope;
    if (scope === undefined) return;
    const challenge = scopeChallenge(scope);
    const message = `This operation needs the scope ${scope}, which the API key lacks`;
    const check: onRequestHookHandler = (request, reply, done) => {
      if (request.apiKey?.scopes.includes(scope) === true) done();
      else sendError(request, reply, 'insufficient_scope', message, challenge);
    };
    route.onRequest = [...hookList(route.onRequest), check];
  });
}
