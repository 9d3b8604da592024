import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { parseTimestamp } from '../../src/clock/index.js';

const two = (value: number) => String(value).padStart(2, '0');

describe('RFC 3339 timestamps', () => {
  test('every instant written by toISOString reads back as itself', () => {
    const instants = fc.date({
      min: new Date('0001-01-01T00:00:00Z'),
      max: new Date('9999-12-31T23:59:59Z'),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(instants, (date) => parseTimestamp(date.toISOString()) === date.getTime()),
      { numRuns: 2000 },
    );
  });

  test('a day past the end of its month, hour 24, second 60 or a month 13 is refused, never moved', () => {
    const years = fc.integer({ min: 1, max: 9999 });
    const months = fc.integer({ min: 1, max: 12 });
    fc.assert(
      fc.property(years, months, fc.integer({ min: 1, max: 4 }), (year, month, past) => {
        const last = new Date(0);
        last.setUTCFullYear(year, month, 0);
        const day = last.getUTCDate() + past;
        const text = `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T00:00:00Z`;
        return day > 31 || parseTimestamp(text) === undefined;
      }),
      { numRuns: 2000 },
    );
    for (const text of [
      '2027-02-30T00:00:00Z',
      '2027-02-29T00:00:00Z',
      '2100-02-29T00:00:00Z',
      '2027-04-31T00:00:00Z',
      '2027-01-31T24:00:00Z',
      '2027-01-31T23:60:00Z',
      '2027-01-31T23:59:60Z',
      '2027-13-01T00:00:00Z',
      '2027-00-10T00:00:00Z',
      '2027-01-00T00:00:00Z',
      '2027-01-31T00:00:00+24:00',
      '2027-01-31',
      'Jan 31 2027',
    ]) {
      assert.equal(parseTimestamp(text), undefined, text);
    }
    assert.equal(parseTimestamp('2028-02-29T00:00:00Z'), Date.UTC(2028, 1, 29));
    assert.equal(parseTimestamp('2000-02-29T12:00:00+02:00'), Date.UTC(2000, 1, 29, 10));
    assert.equal(parseTimestamp('0004-02-29T00:00:00Z'), Date.parse('0004-02-29T00:00:00Z'));
  });

  test('an instant outside the UTC years 0001 to 9999 is refused: it would not read back as written', () => {
    for (const text of [
      '0000-01-01T00:00:00Z',
      '0000-12-31T23:59:59Z',
      '0001-01-01T00:59:59+01:00',
      '9999-12-31T23:00:00-01:00',
    ]) {
      assert.equal(parseTimestamp(text), undefined, text);
    }
    assert.equal(parseTimestamp('0001-01-01T00:00:00Z'), Date.parse('0001-01-01T00:00:00Z'));
    assert.equal(parseTimestamp('0001-01-01T01:00:00+01:00'), Date.parse('0001-01-01T00:00:00Z'));
    assert.equal(parseTimestamp('9999-12-31T23:59:59.999Z'), Date.parse('9999-12-31T23:59:59.999Z'));
    assert.equal(parseTimestamp('9999-12-31T23:59:59-00:00'), Date.parse('9999-12-31T23:59:59Z'));
  });
});
