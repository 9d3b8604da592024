/**
 * The roles of the people and admin tokens that use the admin API (docs/people-and-roles.md), from the most
 * trusted down. Each admin operation names the least role it needs (`role` in `ADMIN_OPERATIONS`, and
 * `x-petstore-role` in the admin document); a role may do everything the roles below it may.
 */
export const ROLES = ['owner', 'admin', 'support', 'viewer'] as const;

export type Role = (typeof ROLES)[number];

/** What each role may do, as the admin document, the guide and the CLI's help say it. */
export const ROLE_MEANING: Readonly<Record<Role, string>> = {
  owner: 'everything: admin tokens and their roles, and rotating a webhook endpoint’s signing secret',
  admin: 'keys, custom domains and webhook endpoints: create, change, rotate, revoke, replay',
  support: 'read everything, the request log with client addresses included, and lift a key’s ban',
  viewer: 'read everything but client addresses (the request log shows them as null)',
};

const RANK: Readonly<Record<Role, number>> = { viewer: 0, support: 1, admin: 2, owner: 3 };

const KNOWN: ReadonlySet<string> = new Set(ROLES);

export const isRole = (value: string): value is Role => KNOWN.has(value);

/** Whether a holder of `held` may do what needs `needed`. */
export const roleAllows = (held: Role, needed: Role): boolean => RANK[held] >= RANK[needed];

/**
 * Who an audit entry's actor is: an admin token, a person signed in with OpenID Connect, an API key (one that rotated or revoked itself), the
 * command line, or the service itself (`config`, `checker`, `webhooks`).
 */
export const ACTOR_KINDS = ['token', 'person', 'key', 'cli', 'system'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

/** How a person signed in with OpenID Connect is named for people: their name, else their email, else their subject. */
export const personName = (person: { name: string | null; email: string | null; subject: string }): string =>
  person.name ?? person.email ?? person.subject;
