import { signal } from '@preact/signals';

/**
 * A message for the page an action leads to, such as the domains list after a removal: shown while that
 * page is, gone once the operator moves on.
 */
export const notice = signal<{ text: string; pathname: string } | null>(null);

/**
 * A secret just made for the page the console goes to: a key made by a rotation (the new key's page), or a
 * webhook endpoint's signing secret (the endpoint's page). Shown there once, and forgotten when the operator
 * chooses Done or leaves that page.
 */
export const issuedSecret = signal<{ secret: string; pathname: string } | null>(null);
