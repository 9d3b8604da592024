import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crc32 as zlibCrc32 } from 'node:zlib';
import fc from 'fast-check';
import {
  crc32,
  generateAdminToken,
  generateKey,
  KEY_LENGTH,
  keyEnvironment,
  keyFault,
} from '../../src/keys/index.js';

// The key page checks a key in the browser with key-text.ts, without zlib: these hold its answers to the
// server's, so that the page never refuses a key the server takes, nor sends one the server would refuse.

test("the browser's CRC-32 is zlib's, for any text", () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
      assert.equal(crc32(text), zlibCrc32(text));
    }),
    { numRuns: 2_000 },
  );
  assert.equal(crc32(''), 0);
  assert.equal(crc32('123456789'), 0xcbf43926, 'the check value of CRC-32/ISO-HDLC');
});

test('the page finds no fault in a key the server takes, and a fault in every one it refuses', () => {
  fc.assert(
    fc.property(
      fc.constantFrom('production' as const, 'staging' as const),
      fc.nat({ max: KEY_LENGTH - 1 }),
      fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-'),
      (env, index, replacement) => {
        const key = generateKey(env);
        assert.equal(keyFault(key), undefined);
        assert.equal(keyEnvironment(key), env);
        const changed = key.slice(0, index) + replacement + key.slice(index + 1);
        assert.equal(keyFault(changed) === undefined, keyEnvironment(changed) !== undefined, changed);
      },
    ),
    { numRuns: 2_000 },
  );
});

test('each fault is named as a reader would fix it', () => {
  const key = generateKey('production');
  const last = key.endsWith('a') ? 'b' : 'a';
  assert.equal(keyFault(''), 'empty');
  assert.equal(keyFault(generateAdminToken()), 'admin_token');
  assert.equal(keyFault('sk_live_abc'), 'prefix');
  assert.equal(keyFault(key.slice(0, 39)), 'length');
  assert.equal(keyFault(`${key.slice(0, 20)}-${key.slice(21)}`), 'characters');
  assert.equal(keyFault(`${key.slice(0, -1)}${last}`), 'checksum');
});
