import { signal } from '@preact/signals';

/**
 * What the last action on the key left to show. It lives beside the page, not in the key's details: those
 * are drawn again for the new key after a rotation, and the new key must stay on screen until read.
 */
export type KeyOutcome =
  | { kind: 'rotated'; secret: string; oldKeyUntil: string }
  | { kind: 'revoked'; id: string; at: string; successors: string[] };

export const keyOutcome = signal<KeyOutcome | null>(null);
