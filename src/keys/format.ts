import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { Environment } from './record.js';

/**
 * API key format: `ps_<env>_<26 random base62 chars><6 base62 chars of CRC32>`, for example
 * `ps_live_4Fh2kP9qLx0ZbT7mW3cR1d0N8xYzQ2aB`.
 *
 * - 26 base62 characters drawn uniformly carry 26 * log2(62) = 155 bits from the CSPRNG; the 4 that
 *   `keys list` shows leave 131 secret bits, above the 128 DESIGN.md asks for.
 * - The CRC32 of everything before it lets leak scanners (and this server) recognise a real key offline
 *   and reject a mistyped or invented one before any lookup.
 * - The `ps_live_` / `ps_test_` prefix names the environment, so a staging key is never tried in production.
 */
export const KEY_PATTERN = /^ps_(live|test)_[0-9A-Za-z]{32}$/;

/** The published pattern, for leak scanners (same as `KEY_PATTERN`, without anchors). */
export const KEY_PATTERN_SOURCE = 'ps_(live|test)_[0-9A-Za-z]{32}';

/**
 * Admin tokens (`petstore admin-tokens create`) have the same shape under their own prefix, `ps_admin_`,
 * so that neither can be mistaken for the other and leak scanners can tell them apart.
 */
export const ADMIN_TOKEN_PATTERN = /^ps_admin_[0-9A-Za-z]{32}$/;
const ADMIN_PREFIX = 'ps_admin_';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 26;
const CHECKSUM_CHARS = 6; // 62^6 > 2^32
const PREFIX_CHARS = 8; // 'ps_live_'
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

function base62(value: number, width: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i += 1) {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function checksum(body: string): string {
  return base62(crc32(body), CHECKSUM_CHARS);
}

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
  const split = token.length - CHECKSUM_CHARS;
  return checksum(token.slice(0, split)) === token.slice(split);
}

/** The part of an admin token that may be shown after creation: its prefix and 4 random characters. */
export function adminTokenPrefix(token: string): string {
  return token.slice(0, ADMIN_PREFIX.length + 4);
}

/** The environment a well-formed key with a correct checksum belongs to, or undefined. No I/O. */
export function keyEnvironment(token: string): Environment | undefined {
  if (token.length !== PREFIX_CHARS + RANDOM_CHARS + CHECKSUM_CHARS || !KEY_PATTERN.test(token))
    return undefined;
  const split = token.length - CHECKSUM_CHARS;
  if (checksum(token.slice(0, split)) !== token.slice(split)) return undefined;
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
