import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ADMIN_BODY_ERRORS, type AdminOperation } from './admin-operation.js';
import { stringEnum } from './enum.js';
import { Name, OrNull, Timestamp } from './fields.js';
import { type ACTOR_KINDS, ROLES } from './roles.js';

// The admin API's admin tokens: their schemas and operations (docs/people-and-roles.md).

export const AdminTokenId = Type.String({
  pattern: '^adm_[0-9A-Za-z]{12}$',
  maxLength: 16,
  description: 'The public id of an admin token, such as `adm_3fK9x2LmQ8aZ`: the actor of its changes.',
  examples: ['adm_3fK9x2LmQ8aZ'],
});

export const AdminTokenParams = Type.Object({ id: AdminTokenId }, { additionalProperties: false });

/** Who may make an admin token, as the audit's `actorKind` names them. */
const TOKEN_MAKERS = ['person', 'token', 'cli'] as const satisfies readonly (typeof ACTOR_KINDS)[number][];

/** What every view of an admin token says of it. */
export const AdminTokenFields = {
  id: AdminTokenId,
  name: Type.String(),
  role: stringEnum(ROLES, { description: 'What it may do (the guide People and roles).' }),
  createdAt: Timestamp('When it was made.'),
};

export const AdminToken = Type.Object(
  {
    ...AdminTokenFields,
    prefix: Type.String({ description: 'The first characters of the token, to tell tokens apart.' }),
    revokedAt: OrNull(Timestamp('When it was revoked; every instance refuses it within 5 seconds.')),
    createdBy: OrNull(
      Type.Object(
        {
          kind: stringEnum(TOKEN_MAKERS, {
            description:
              '`person`: a person in their console session (signed in with OpenID Connect); `token`: an admin ' +
              'token, sent or of its console session; `cli`: the command line.',
          }),
          id: Type.String({
            description:
              'The person’s id (`per_…`), the token’s (`adm_…`) or `cli`: the actor of its `admin_token.created` audit entry.',
          }),
          name: OrNull(
            Type.String({
              description:
                'The person’s name (else their email, else their subject) or the token’s name; null for the command line.',
            }),
          ),
        },
        {
          additionalProperties: false,
          description:
            'Who made it. Null when that was not recorded: a token made by an instance of 1.3 during a rolling ' +
            'upgrade (with its command line).',
        },
      ),
    ),
  },
  { additionalProperties: false, description: 'An admin token; never the token itself after it is made.' },
);

export const AdminTokenCreated = Type.Composite(
  [
    AdminToken,
    Type.Object({
      token: Type.String({
        pattern: '^ps_admin_[0-9A-Za-z]{32}$',
        description: 'The token, shown this once: the service keeps only a hash of it.',
      }),
    }),
  ],
  { additionalProperties: false, description: 'An admin token just made, with the token itself.' },
);

export const NewAdminToken = Type.Object(
  {
    name: Type.Optional(Name),
    role: stringEnum(ROLES, { description: 'Its role: never above the role of whoever makes it.' }),
  },
  { additionalProperties: false },
);

export const TOKEN_SCHEMAS = { AdminToken, AdminTokenCreated, NewAdminToken } satisfies Record<
  string,
  TSchema
>;

export const TOKEN_PARAMETERS = { AdminTokenParams } satisfies Record<string, TSchema>;

export const TOKEN_OPERATIONS = [
  {
    operationId: 'listAdminTokens',
    method: 'GET',
    path: '/admin-tokens',
    tag: 'Admin tokens',
    role: 'viewer',
    summary: 'List admin tokens',
    description:
      'Every admin token, revoked ones included, oldest first, with its role; never a token itself.',
    success: { status: 200, description: 'Every admin token.', schema: 'AdminToken', array: true },
    errors: [],
  },
  {
    operationId: 'createAdminToken',
    method: 'POST',
    path: '/admin-tokens',
    tag: 'Admin tokens',
    role: 'owner',
    summary: 'Create an admin token',
    description:
      'Makes a token with a role and shows it once: only its digest is stored. Every instance accepts it at ' +
      'once. As `petstore admin-tokens create --role` does.',
    requestBody: 'NewAdminToken',
    success: { status: 201, description: 'The token, with the token itself.', schema: 'AdminTokenCreated' },
    errors: ADMIN_BODY_ERRORS,
  },
  {
    operationId: 'revokeAdminToken',
    method: 'POST',
    path: '/admin-tokens/{id}/revoke',
    tag: 'Admin tokens',
    role: 'owner',
    summary: 'Revoke an admin token',
    description:
      'Every instance refuses the token within 5 seconds, and every console session made with it ends. ' +
      'Revoking a revoked token changes nothing.',
    params: 'AdminTokenParams',
    success: { status: 200, description: 'The token, revoked.', schema: 'AdminToken' },
    errors: [400, 404],
  },
] as const satisfies readonly AdminOperation<keyof typeof TOKEN_SCHEMAS, keyof typeof TOKEN_PARAMETERS>[];

export type NewAdminToken = Static<typeof NewAdminToken>;
export type AdminTokenView = Static<typeof AdminToken>;
export type AdminTokenCreatedView = Static<typeof AdminTokenCreated>;
