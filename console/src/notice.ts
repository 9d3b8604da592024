import { signal } from '@preact/signals';

/**
 * A message for the page an action leads to, such as the domains list after a removal: shown while that
 * page is, gone once the operator moves on.
 */
export const notice = signal<{ text: string; pathname: string } | null>(null);

/**
 * A key just made by a rotation, for the page of the new key that the console goes to: shown there once, and
 * forgotten when the operator chooses Done or leaves that page (the server keeps only its digest).
 */
export const issuedKey = signal<{ secret: string; pathname: string } | null>(null);
