import { signal } from '@preact/signals';
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

/** Why the sign-in page is shown again, when it is not the first visit. */
export const signInMessage = signal<string | null>(null);

/** Back to the sign-in page, saying why: the server refused the session (expired, revoked, signed out elsewhere). */
export function sessionEnded(): void {
  session.value = null;
  signInMessage.value = 'Your session ended; sign in again.';
}
