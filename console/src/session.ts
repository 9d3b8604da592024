import { signal } from '@preact/signals';
import type { Role } from '../../src/contract/roles.js';
import type { Route } from './router.js';
import type { AdminOperationId, Session } from './types.js';

/**
 * Who is signed in: undefined while the console asks the server at start, null when nobody is. The server
 * owns the session (an HttpOnly cookie the console cannot read); this is only what it last said about it.
 */
export const session = signal<Session | null | undefined>(undefined);

/**
 * Whether the session's role allows an operation: the console offers only what it may do (the API refuses
 * the rest anyway, 403 `insufficient_role`).
 */
export const may = (operation: AdminOperationId): boolean =>
  session.value?.operations.includes(operation) === true;

/**
 * The pages not every role may open: the operation each reads, and the least role that may (the admin
 * document's `x-petstore-role` of it, which the console tests hold this to). The menu leaves them out for a
 * role without it, and the page says in words what is lacking.
 */
export const PAGE_NEEDS: Partial<Record<Route['page'], { operation: AdminOperationId; role: Role }>> = {
  people: { operation: 'listPeople', role: 'owner' },
};

/** The least role a page needs when the session's role may not open it, else undefined. */
export function roleLacking(page: Route['page']): Role | undefined {
  const needs = PAGE_NEEDS[page];
  return needs === undefined || may(needs.operation) ? undefined : needs.role;
}

/** Why the sign-in page is shown again, when it is not the first visit. */
export const signInMessage = signal<string | null>(null);

/** Back to the sign-in page, saying why: the server refused the session (expired, revoked, signed out elsewhere). */
export function sessionEnded(): void {
  session.value = null;
  signInMessage.value = 'Your session ended; sign in again.';
}
