import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import {
  ADMIN_PREFIX,
  ADMIN_TOKEN_PATTERN,
  ALPHABET,
  CHECKSUM_CHARS,
  checksumMatches,
  checksumOf,
  KEY_LENGTH,
  KEY_PATTERN,
  PREFIX_CHARS,
  RANDOM_CHARS,
} from './key-text.js';
import type { Environment } from './record.js';

// The format itself, and its checksum, are in key-text.ts, which the reference's key page bundles too.
export { ADMIN_TOKEN_PATTERN, KEY_PATTERN, KEY_PATTERN_SOURCE } from './key-text.js';

/** Characters of a key shown by `keys list` and in logs: the prefix and 4 random characters. */
const DISPLAY_CHARS = PREFIX_CHARS + 4;

const ENV_TAG: Record<Environment, string> = { production: 'live', staging: 'test' };

/** `length` characters drawn uniformly from the base62 alphabet by the CSPRNG. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: rejecting bytes above it keeps every character equally likely.
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

// The server uses zlib's CRC32 (native); the key page the same algorithm in JavaScript (key-text.ts).
const checksum = (body: string) => checksumOf(body, crc32);

/** Makes a new key for an environment. The caller shows it once and stores only its digest. */
export function generateKey(env: Environment): string {
  const body = `ps_${ENV_TAG[env]}_${randomBase62(RANDOM_CHARS)}`;
  return body + checksum(body);
}

/** Makes a new admin token. The caller shows it once and stores only its digest (`keyDigest`). */
export function generateAdminToken(): string {
  const body = `${ADMIN_PREFIX}${randomBase62(RANDOM_CHARS)}`;
  return body + checksum(body);
}

/** Whether a string is a well-formed admin token with a correct checksum. No I/O. */
export function isAdminToken(token: string): boolean {
  if (
    token.length !== ADMIN_PREFIX.length + RANDOM_CHARS + CHECKSUM_CHARS ||
    !ADMIN_TOKEN_PATTERN.test(token)
  ) {
    return false;
  }
  return checksumMatches(token, crc32);
}

/** The part of an admin token that may be shown after creation: its prefix and 4 random characters. */
export function adminTokenPrefix(token: string): string {
  return token.slice(0, ADMIN_PREFIX.length + 4);
}

/** The environment a well-formed key with a correct checksum belongs to, or undefined. No I/O. */
export function keyEnvironment(token: string): Environment | undefined {
  if (token.length !== KEY_LENGTH || !KEY_PATTERN.test(token)) return undefined;
  if (!checksumMatches(token, crc32)) return undefined;
  return token.startsWith('ps_live_') ? 'production' : 'staging';
}

/** The SHA-256 digest under which a key is stored; the key itself is never stored. */
export function keyDigest(token: string): string {
  return hash('sha256', token, 'base64url');
}

/** The part of a key that may be shown after creation. */
export function displayPrefix(token: string): string {
  return token.slice(0, DISPLAY_CHARS);
}
