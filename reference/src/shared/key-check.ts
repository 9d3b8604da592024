import { KEY_LENGTH, type KeyFault, keyFault } from '../../../src/keys/key-text.js';

/**
 * The key in what a reader pasted: the key alone, `Bearer ps_live_…` or the whole `Authorization: Bearer …`
 * line of a request they copied, with spaces or quotes around. The scheme word is case-insensitive (RFC 9110
 * section 11.1), as the server reads it.
 */
export function keyFromInput(text: string): string {
  return text
    .trim()
    .replace(/^(["'`])(.*)\1$/s, '$2')
    .replace(/^authorization\s*:\s*/i, '')
    .replace(/^bearer\s+/i, '')
    .trim();
}

const MESSAGES: Record<KeyFault, (key: string) => string> = {
  empty: () => 'Enter your API key.',
  admin_token: () =>
    'This is an admin token (ps_admin_…), not an API key: admin tokens sign in to the console. Enter an API key.',
  prefix: () => 'An API key starts with ps_live_ (production) or ps_test_ (staging).',
  length: (key) => `An API key has ${KEY_LENGTH} characters; this has ${key.length}. Copy it again, whole.`,
  characters: () => 'An API key has only letters and digits after its ps_live_ or ps_test_ prefix.',
  checksum: () =>
    'This key fails its checksum (its last 6 characters): a character was mistyped or changed. Copy it again.',
};

/**
 * What is wrong with a key, said as a reader would fix it, or undefined for a well-formed key with a correct
 * checksum. Checked here, with the server's own format (src/keys/key-text.ts), so that a key that cannot be
 * right is never sent: each refused request would spend the address's anonymous quota.
 */
export function keyProblem(key: string): string | undefined {
  const fault = keyFault(key);
  return fault === undefined ? undefined : MESSAGES[fault](key);
}
