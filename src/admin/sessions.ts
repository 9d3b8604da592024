import type { SessionStart } from '../contract/index.js';
import { ApiError } from '../errors/index.js';
import type { AdminHandlers } from '../http/index.js';
import {
  type AdminAuthenticator,
  type AdminTokenRecord,
  clearSessionCookie,
  INVALID_CHALLENGE,
  MISSING_CHALLENGE,
  type Sessions,
  sessionTransportAllowed,
  setSessionCookie,
} from '../identity/index.js';

const signInWithToken = () =>
  new ApiError(
    'missing_api_key',
    'Sign in with an admin token: send Authorization: Bearer <ADMIN_TOKEN>, or {"token": "<ADMIN_TOKEN>"}',
    MISSING_CHALLENGE,
  );
const noSession = () =>
  new ApiError('not_found', 'This request has no console session: it sent an admin token instead');

/**
 * The handlers of the console's sessions: one started with an admin token (sent in `Authorization`, or in the
 * body), shown, and ended. A person's session starts at the identity provider's callback instead.
 */
export function sessionHandlers(deps: {
  sessions: Sessions;
  /** To check the token a sign-in sends in its body. */
  tokens: AdminAuthenticator;
  /** Whether an admin token may start a console session (`CONSOLE_TOKEN_SIGNIN`). */
  tokenSignIn: boolean;
}): Pick<AdminHandlers, 'startSession' | 'getSession' | 'endSession'> {
  const { sessions, tokens, tokenSignIn } = deps;
  /** The token a sign-in sent in its body, as the admin hook would know it from `Authorization`. */
  async function tokenOfBody(body: SessionStart | undefined): Promise<AdminTokenRecord> {
    if (body?.token === undefined) throw signInWithToken();
    let found = tokens.authenticate(body.token);
    // One made a moment ago, by the CLI or on another instance, as the admin hook rechecks.
    if (found === undefined) {
      await tokens.recheck(body.token);
      found = tokens.authenticate(body.token);
    }
    if (found === undefined)
      throw new ApiError('invalid_api_key', 'The admin token is not valid', INVALID_CHALLENGE);
    return found;
  }
  return {
    async startSession(request, reply) {
      if (request.adminSession !== null) throw signInWithToken();
      if (!tokenSignIn) {
        throw new ApiError(
          'token_signin_off',
          'Signing in to the console with an admin token is turned off (CONSOLE_TOKEN_SIGNIN=off): sign in with your identity provider',
        );
      }
      // Without a session, the request's principal is the token it sent in `Authorization`.
      const sent = request.admin === null ? undefined : tokens.byId(request.admin.id);
      const token = sent ?? (await tokenOfBody(request.body));
      if (!sessionTransportAllowed(request)) {
        throw new ApiError(
          'https_required',
          'A console session starts only over HTTPS, or over plain HTTP from this machine',
        );
      }
      const { credentials, view: session } = await sessions.start(token);
      return reply
        .code(201)
        .header('set-cookie', setSessionCookie(request, credentials.cookie))
        .send({ ...session, secret: credentials.secret });
    },
    async getSession(request, reply) {
      if (request.adminSession === null) throw noSession();
      return reply.send(request.adminSession.view);
    },
    async endSession(request, reply) {
      const session = request.adminSession;
      if (session === null || request.admin === null) throw noSession();
      const ended = await sessions.end(session.digest, request.admin);
      return reply.header('set-cookie', clearSessionCookie(request)).send({ ended });
    },
  };
}
