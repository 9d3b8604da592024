// What a key looks like, with nothing of Node or the DOM: the server checks keys with it (format.ts), and the
// reference's key page, which bundles this file, checks a key the reader typed before sending it anywhere.

/**
 * API key format: `ps_<env>_<26 random base62 chars><6 base62 chars of CRC32>`, for example
 * `ps_live_4Fh2kP9qLx0ZbT7mW3cR1d0N8xYzQ2aB`.
 *
 * - 26 base62 characters drawn uniformly carry 26 * log2(62) = 155 bits from the CSPRNG; the 4 that
 *   `keys list` shows leave 131 secret bits, above the 128 DESIGN.md asks for.
 * - The CRC32 of everything before it lets leak scanners (and this server, and the key page) recognise a
 *   real key offline and reject a mistyped or invented one before any lookup.
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
export const ADMIN_PREFIX = 'ps_admin_';

export const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const RANDOM_CHARS = 26;
export const CHECKSUM_CHARS = 6; // 62^6 > 2^32
export const PREFIX_CHARS = 8; // 'ps_live_'
/** The length of every API key. */
export const KEY_LENGTH = PREFIX_CHARS + RANDOM_CHARS + CHECKSUM_CHARS;

/** A CRC-32 of a text's UTF-8 bytes: zlib's on the server, `crc32` below in a browser. */
export type Crc32 = (text: string) => number;

/** The CRC-32 table of the IEEE 802.3 polynomial (reversed, 0xEDB88320), as zlib uses. */
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n += 1) {
    let c = n;
    for (let bit = 0; bit < 8; bit += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/**
 * The CRC-32 of a text's UTF-8 bytes, the same number as Node's `zlib.crc32` (a test holds them equal), for
 * code that has no zlib: the key page in a browser.
 */
export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of new TextEncoder().encode(text))
    crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
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

/** The checksum that ends a key or an admin token: the CRC32 of what comes before it, in 6 base62 digits. */
export function checksumOf(body: string, crc: Crc32): string {
  return base62(crc(body), CHECKSUM_CHARS);
}

/** Whether a key or an admin token ends in the checksum of the rest. */
export function checksumMatches(token: string, crc: Crc32): boolean {
  const split = token.length - CHECKSUM_CHARS;
  return split > 0 && checksumOf(token.slice(0, split), crc) === token.slice(split);
}

/** Why a text is not an API key, in the order a reader would fix it. */
export type KeyFault = 'empty' | 'admin_token' | 'prefix' | 'length' | 'characters' | 'checksum';

/** What is wrong with a text as an API key, or undefined when it is a well-formed key with a correct checksum. No I/O. */
export function keyFault(text: string, crc: Crc32 = crc32): KeyFault | undefined {
  if (text === '') return 'empty';
  if (text.startsWith(ADMIN_PREFIX)) return 'admin_token';
  if (!text.startsWith('ps_live_') && !text.startsWith('ps_test_')) return 'prefix';
  if (text.length !== KEY_LENGTH) return 'length';
  if (!KEY_PATTERN.test(text)) return 'characters';
  return checksumMatches(text, crc) ? undefined : 'checksum';
}
