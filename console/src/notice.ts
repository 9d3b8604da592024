import { signal } from '@preact/signals';

/**
 * A message for the page an action leads to, such as the domains list after a removal: shown while that
 * page is, gone once the operator moves on.
 */
export const notice = signal<{ text: string; pathname: string } | null>(null);
