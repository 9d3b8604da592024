import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ifNoneMatchMatches } from '../../src/http/index.js';

test('If-None-Match matching (RFC 9110 weak comparison)', () => {
  const etag = '"abc"';
  const cases: [string | undefined, boolean][] = [
    [undefined, false],
    ['', false],
    ['"abc"', true],
    ['W/"abc"', true],
    ['*', true],
    ['"x", "abc"', true],
    ['"x",W/"abc" ', true],
    ['"abcd"', false],
    ['abc', false],
    ['"ABC"', false],
  ];
  for (const [header, expected] of cases)
    assert.equal(ifNoneMatchMatches(header, etag), expected, String(header));
});

test('a header that does not contain the tag never matches', () => {
  fc.assert(
    fc.property(fc.string(), (header) => {
      fc.pre(!header.includes('"abc"') && !header.includes('*'));
      assert.equal(ifNoneMatchMatches(header, '"abc"'), false);
    }),
  );
});
