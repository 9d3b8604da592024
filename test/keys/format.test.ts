import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { generateKey, KEY_PATTERN, KEY_PATTERN_SOURCE, keyEnvironment } from '../../src/keys/index.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

test('10,000 keys: all match the pattern, verify, differ, and any one-character change fails', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 10_000; i += 1) {
    const env = i % 2 === 0 ? 'production' : 'staging';
    const key = generateKey(env);
    assert.match(key, KEY_PATTERN);
    assert.match(key, new RegExp(`^${KEY_PATTERN_SOURCE}$`));
    assert.ok(key.startsWith(env === 'production' ? 'ps_live_' : 'ps_test_'));
    assert.equal(keyEnvironment(key), env);
    seen.add(key);

    // Change one character of the random part or checksum to another base62 character.
    const index = 8 + (i % 32);
    const original = key[index] as string;
    const replacement = ALPHABET[(ALPHABET.indexOf(original) + 1 + (i % 61)) % 62] as string;
    assert.notEqual(replacement, original);
    const changed = key.slice(0, index) + replacement + key.slice(index + 1);
    assert.equal(keyEnvironment(changed), undefined, `${changed} must fail its checksum`);
  }
  assert.equal(seen.size, 10_000);
});

test('the random part uses the whole alphabet evenly enough', () => {
  const counts = new Map<string, number>();
  for (let i = 0; i < 2_000; i += 1) {
    for (const char of generateKey('production').slice(8, 34)) counts.set(char, (counts.get(char) ?? 0) + 1);
  }
  assert.equal(counts.size, 62);
  const expected = (2_000 * 26) / 62;
  for (const [char, count] of counts)
    assert.ok(Math.abs(count - expected) < expected * 0.25, `${char}: ${count}`);
});

/**
 * Whether `text` ends in the checksum of the format (the CRC32 of what comes before, in 6 base62 digits),
 * computed here from the spec, apart from the code under test.
 */
function endsInItsChecksum(text: string): boolean {
  if (text.length < 6) return false;
  let rest = crc32(text.slice(0, -6));
  let digits = '';
  for (let i = 0; i < 6; i += 1) {
    digits = ALPHABET[rest % 62] + digits;
    rest = Math.floor(rest / 62);
  }
  return text.endsWith(digits);
}

test('arbitrary strings are never accepted as keys', () => {
  // A string of the right shape whose last 6 characters happen to be its checksum is a key: the odds are
  // tiny, but not nil, so such strings are left out rather than bet on.
  fc.assert(
    fc.property(fc.string({ maxLength: 60 }), (text) => {
      fc.pre(!endsInItsChecksum(text));
      assert.equal(keyEnvironment(text), undefined);
    }),
  );
  fc.assert(
    fc.property(fc.stringMatching(/^ps_(live|test)_[0-9A-Za-z]{32}$/), (text) => {
      fc.pre(!endsInItsChecksum(text));
      assert.equal(keyEnvironment(text), undefined);
    }),
  );
});
