import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  MAX_NUMBER_BYTES,
  maxStringBytes,
  writeMilliseconds,
  writeNumber,
  writeString,
} from '../../src/access-log/json-bytes.js';

/**
 * Writes with `write` into a buffer with exactly `room` bytes after a marker byte, and returns what it
 * wrote: a write past the room is cut off by the buffer's end and shows in what is returned.
 */
function written(room: number, write: (buffer: Buffer, at: number) => number): string {
  const buffer = Buffer.alloc(room + 1, 0xff);
  const end = write(buffer, 1);
  assert.equal(buffer[0], 0xff, 'nothing before the start');
  assert.ok(end >= 1 && end <= buffer.length, `the end (${end}) is within the room`);
  return buffer.toString('utf8', 1, end);
}

describe('JSON written as bytes', () => {
  test('a string is what JSON.stringify makes of it, in UTF-8, within maxStringBytes', () => {
    const strings = fc.oneof(
      fc.string(),
      fc.string({ unit: 'grapheme' }),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('', '"', '\\', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', 'a"b\\c\nd'),
    );
    fc.assert(
      fc.property(strings, (value) => {
        assert.equal(
          written(maxStringBytes(value), (buffer, at) => writeString(buffer, at, value)),
          JSON.stringify(value),
        );
      }),
      { numRuns: 2000 },
    );
  });

  test('a number is what JSON.stringify makes of it', () => {
    const numbers = fc.oneof(
      fc.nat(),
      fc.integer({ min: 0, max: 0x7fffffff }),
      fc.constantFrom(0, 9, 10, 99, 100, 0x7fffffff, 0x80000000, Number.MAX_SAFE_INTEGER),
      fc.double(),
      // The longest forms: positional with five zeros after the point (25 bytes; found by this property,
      // fast-check seed 1148686172, when the room was 24), and the longest exponent form.
      fc.constantFrom(-0.0000011301320260118402, -0.0000012345678901234567, -1.2345678901234567e-100),
    );
    fc.assert(
      fc.property(numbers, (value) => {
        assert.equal(
          written(MAX_NUMBER_BYTES, (buffer, at) => writeNumber(buffer, at, value)),
          JSON.stringify(value),
        );
      }),
      { numRuns: 2000 },
    );
  });

  test('MAX_NUMBER_BYTES is the longest number JSON.stringify writes', () => {
    // Every double from 1e-6 to 1e-7 with 17 significant digits is written positionally at full length.
    assert.equal(JSON.stringify(-0.0000011301320260118402).length, MAX_NUMBER_BYTES);
    const longest = fc.double({ min: -1e-6, max: -1e-7, noNaN: true });
    fc.assert(
      fc.property(longest, (value) => JSON.stringify(value).length <= MAX_NUMBER_BYTES),
      { numRuns: 2000 },
    );
  });

  test('a duration has three decimals and is the milliseconds rounded to the microsecond', () => {
    const durations = fc.oneof(
      fc.double({ min: 0, max: 1e6, noNaN: true }),
      fc.constantFrom(0, 0.0004, 0.0005, 0.001, 0.01, 0.1, 1, 12.03, 999.9995, 1000),
    );
    fc.assert(
      fc.property(durations, (milliseconds) => {
        const text = written(MAX_NUMBER_BYTES, (buffer, at) => writeMilliseconds(buffer, at, milliseconds));
        assert.match(text, /^\d+\.\d{3}$/);
        assert.equal(Number(text), Math.round(milliseconds * 1000) / 1000);
      }),
      { numRuns: 2000 },
    );
  });
});
