import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ADMIN_BODY_ERRORS, type AdminOperation } from './admin-operation.js';
import { AdminTokenFields, AdminTokenId } from './admin-tokens.js';
import { stringEnum } from './enum.js';
import { OrNull, Timestamp } from './fields.js';
import { ROLES } from './roles.js';

// The admin API's people, who sign in with OpenID Connect: their schemas and operations.

const PersonId = Type.String({
  pattern: '^per_[0-9A-Za-z]{12}$',
  maxLength: 16,
  description:
    'The public id of a person who signs in with OpenID Connect, such as `per_7Hq2Lm9xKc3a`: the actor of their changes.',
  examples: ['per_7Hq2Lm9xKc3a'],
});

export const PersonParams = Type.Object({ id: PersonId }, { additionalProperties: false });

/** Who a person is, as their identity provider says. */
export const PersonFields = {
  id: PersonId,
  subject: Type.String({
    description: 'The provider’s `sub`: the one thing about a person that never changes.',
  }),
  email: OrNull(Type.String({ description: 'The `email` claim at their last sign-in.' })),
  name: OrNull(Type.String({ description: 'The `name` claim at their last sign-in.' })),
};

/** A live admin token a person made, as the People operations show it. */
const PersonToken = Type.Object(
  {
    ...AdminTokenFields,
    through: OrNull(
      Type.Object(
        { id: AdminTokenId, name: Type.String() },
        {
          additionalProperties: false,
          description:
            'The token that made it: one the person made, or one made through theirs, however deep (revoked ' +
            'or not). Null when the person made it in their console session.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export const Person = Type.Object(
  {
    ...PersonFields,
    issuer: Type.String({ description: 'The identity provider (`OIDC_ISSUER`) that signed them in.' }),
    role: stringEnum(ROLES, {
      description: 'The role their groups gave them at their last sign-in (`OIDC_ROLES`).',
    }),
    firstSignInAt: Timestamp('Their first sign-in.'),
    lastSignInAt: Timestamp('Their last sign-in.'),
    sessions: Type.Integer({ minimum: 0, description: 'How many of their console sessions are live now.' }),
    tokens: Type.Array(PersonToken, {
      description:
        'The live admin tokens they made, oldest first: in their console session, or with a token they made ' +
        '(`through`), however deep. Removing them at the identity provider ends their sessions, not these.',
    }),
  },
  { additionalProperties: false, description: 'A person who signed in to the console with OpenID Connect.' },
);

export const PersonSessionsEnd = Type.Object(
  {
    revokeTokens: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Also revoke every live admin token they made (each of their `tokens`), in the same unit of work.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const PersonSessionsEnded = Type.Object(
  {
    ended: Type.Integer({ minimum: 0, description: 'How many live sessions ended.' }),
    revokedTokens: Type.Array(Type.Object(AdminTokenFields, { additionalProperties: false }), {
      description: 'The tokens revoked, oldest first; empty without `revokeTokens`.',
    }),
  },
  { additionalProperties: false },
);

export const PEOPLE_SCHEMAS = { Person, PersonSessionsEnd, PersonSessionsEnded } satisfies Record<
  string,
  TSchema
>;

export const PEOPLE_PARAMETERS = { PersonParams } satisfies Record<string, TSchema>;

export const PEOPLE_OPERATIONS = [
  {
    operationId: 'listPeople',
    method: 'GET',
    path: '/people',
    tag: 'People',
    role: 'owner',
    summary: 'List people',
    description:
      'Everyone who has signed in to the console with OpenID Connect, the latest sign-in first: when, with ' +
      'which role, how many sessions they have live, and the live admin tokens they made.',
    success: { status: 200, description: 'Every person.', schema: 'Person', array: true },
    errors: [],
  },
  {
    operationId: 'endPersonSessions',
    method: 'POST',
    path: '/people/{id}/end-sessions',
    tag: 'People',
    role: 'owner',
    summary: 'End a person’s sessions',
    description:
      'Ends every live console session of a person, on every instance at their next request. They can sign ' +
      'in again while their identity provider lets them: remove them there to keep them out. Admin tokens ' +
      'they made outlive both; with `{"revokeTokens": true}` every live one (their `tokens` in the list) is ' +
      'revoked too, in the same unit of work, each audited as `admin_token.revoked`: this instance refuses ' +
      'them at once, the others within 5 seconds. The body may be left out.',
    params: 'PersonParams',
    requestBody: 'PersonSessionsEnd',
    optionalBody: true,
    success: {
      status: 200,
      description: 'How many sessions ended, and the tokens revoked.',
      schema: 'PersonSessionsEnded',
    },
    errors: [...ADMIN_BODY_ERRORS, 404],
  },
] as const satisfies readonly AdminOperation<keyof typeof PEOPLE_SCHEMAS, keyof typeof PEOPLE_PARAMETERS>[];

export type PersonView = Static<typeof Person>;
export type PersonSessionsEnd = Static<typeof PersonSessionsEnd>;
export type PersonSessionsEndedView = Static<typeof PersonSessionsEnded>;
