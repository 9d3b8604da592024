import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { AdminOperation } from './admin-operation.js';
import { stringEnum } from './enum.js';
import { OrNull, Timestamp } from './fields.js';
import { PersonFields } from './people.js';
import { ROLES } from './roles.js';

// The admin API's console sessions: their schemas and operations.

export const Session = Type.Object(
  {
    tokenId: OrNull(
      Type.String({
        description:
          'The admin token it was made with: its changes are audited as that token’s. Null for a person’s session.',
      }),
    ),
    tokenName: OrNull(Type.String()),
    person: OrNull(
      Type.Object(PersonFields, {
        additionalProperties: false,
        description:
          'The person it belongs to, signed in with OpenID Connect: their changes are audited as theirs. Null for a token’s session.',
      }),
    ),
    role: stringEnum(ROLES, {
      description:
        'What the session may do: its token’s role, or the role its person’s groups gave at sign-in.',
    }),
    operations: Type.Array(Type.String(), {
      description:
        'The admin operations (by `operationId`) the role allows: the console offers only these, and the ' +
        'API refuses the others anyway (403 `insufficient_role`).',
    }),
    createdAt: Timestamp('When it started.'),
    expiresAt: Timestamp('When it ends however busy it is: 12 hours after it started.'),
    idleExpiresAt: Timestamp('When it ends unless it makes a request first: 30 minutes after its last one.'),
  },
  {
    additionalProperties: false,
    description: 'A console session: the cookie that carries it is never shown.',
  },
);

export const SessionStarted = Type.Composite(
  [
    Session,
    Type.Object({
      secret: Type.String({
        pattern: '^pssh_[A-Za-z0-9_-]{43}$',
        description:
          'The session’s second secret, shown this once: send it as `X-Petstore-Session` with every request ' +
          'that carries the cookie. The cookie alone is refused (401): a cookie is not scoped by port, so any ' +
          'other server on this host that the browser visits receives it, while the console keeps this ' +
          'secret in its own tab’s storage.',
      }),
    }),
  ],
  {
    additionalProperties: false,
    description: 'A console session just started: its cookie is in `Set-Cookie`, its second secret here.',
  },
);

export const SessionStart = Type.Object(
  {
    token: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'The admin token, for a client that cannot set `Authorization`; the header is preferred.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'A sign-in with the token in the body. The body may be left out.',
  },
);

export const SessionEnd = Type.Object(
  { ended: Type.Boolean({ description: 'False when it had already ended.' }) },
  { additionalProperties: false, description: 'A session ended: its cookie is refused from now on.' },
);

export const SESSION_SCHEMAS = { Session, SessionStarted, SessionStart, SessionEnd } satisfies Record<
  string,
  TSchema
>;

export const SESSION_PARAMETERS = {} satisfies Record<string, TSchema>;

export const SESSION_OPERATIONS = [
  {
    operationId: 'startSession',
    method: 'POST',
    path: '/sessions',
    tag: 'Sessions',
    role: 'viewer',
    summary: 'Sign in to the console',
    description:
      'Exchanges the admin token in `Authorization` for a console session, set as a cookie: `HttpOnly`, ' +
      '`SameSite=Strict`, `Path=/`, and over HTTPS (through the TLS front too) `Secure` with the `__Host-` ' +
      'prefix (`__Host-petstore_session`). Over plain HTTP (`petstore_session`) only from this machine: 403 ' +
      '`https_required` otherwise. A session ends 30 minutes after its last request, 12 hours after it ' +
      'started, when it signs out, and when its token is revoked; requests the console marks ' +
      '`X-Petstore-Background: true` (a page refreshing itself) do not count as activity. With the cookie ' +
      'and the answer’s `secret` in `X-Petstore-Session` (the cookie alone is 401), every admin operation ' +
      'acts as its token; one that changes something must come from a page of this origin (403 ' +
      '`cross_origin_request`). The token goes in `Authorization`, or in the body as `{"token"}`.',
    requestBody: 'SessionStart',
    optionalBody: true,
    success: {
      status: 201,
      description: 'The session and its second secret; its cookie is in `Set-Cookie`.',
      schema: 'SessionStarted',
    },
    errors: [403],
  },
  {
    operationId: 'getSession',
    method: 'GET',
    path: '/sessions/current',
    tag: 'Sessions',
    role: 'viewer',
    summary: 'Show the current console session',
    description:
      'The session of the cookie and `X-Petstore-Session` sent: 401 when it has ended, 404 for a request ' +
      'with a token instead.',
    success: { status: 200, description: 'The session.', schema: 'Session' },
    errors: [404],
  },
  {
    operationId: 'endSession',
    method: 'DELETE',
    path: '/sessions/current',
    tag: 'Sessions',
    role: 'viewer',
    summary: 'Sign out of the console',
    description: 'Ends the session of the cookie sent, on every instance at once, and clears the cookie.',
    success: { status: 200, description: 'The session ended.', schema: 'SessionEnd' },
    errors: [403, 404],
  },
] as const satisfies readonly AdminOperation<keyof typeof SESSION_SCHEMAS, keyof typeof SESSION_PARAMETERS>[];

export type SessionStart = Static<typeof SessionStart>;
