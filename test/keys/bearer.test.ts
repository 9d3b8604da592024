import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  bearerToken,
  generateKey,
  invalidKeyMessage,
  missingCredentialMessage,
} from '../../src/keys/index.js';

test('bearer tokens: the scheme is case-insensitive; anything else is no token', () => {
  const cases: [string | undefined, string | undefined][] = [
    [undefined, undefined],
    ['', undefined],
    ['Bearer', undefined],
    ['Bearer ', undefined],
    ['Bearer    ', undefined],
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER   abc  ', 'abc'],
    ['Basic abc', undefined],
    ['Bearerabc', undefined],
    ['Bearer a b', 'a b'],
  ];
  for (const [header, expected] of cases) assert.equal(bearerToken(header), expected, String(header));
});

test('a header of many spaces is parsed in linear time', () => {
  const header = `Bearer ${' '.repeat(200_000)}a b`;
  const started = process.hrtime.bigint();
  for (let i = 0; i < 100; i += 1) bearerToken(header);
  const perCallMs = Number(process.hrtime.bigint() - started) / 1e6 / 100;
  // A backtracking regular expression took about 145 ms for 15,000 spaces; linear parsing takes microseconds.
  assert.ok(perCallMs < 5, `${perCallMs.toFixed(2)} ms per call`);
});

test('without a bearer credential, the answer says what the header lacks, and never echoes a credential', () => {
  const send = 'send Authorization: Bearer <API_KEY>';
  const cases: [string | undefined, string][] = [
    [undefined, `An API key is required: ${send}`],
    ['   ', `An API key is required: ${send}`],
    [
      'ps_live_4Fh2kP9qLx0ZbT7mW3cR1d0N8xYzQ2aB',
      `The Authorization header lacks its scheme, Bearer, before the credential: ${send}`,
    ],
    ['Bearer', `The Authorization header names no API key: ${send}`],
    ['bearer   ', `The Authorization header names no API key: ${send}`],
    ['Basic dXNlcjpwYXNz', `The Authorization header uses the scheme Basic, not Bearer: ${send}`],
    ['ps_live_4Fh2kP9qLx0Zb tail', `The Authorization header uses the scheme, not Bearer: ${send}`],
  ];
  for (const [header, expected] of cases) {
    assert.equal(missingCredentialMessage(header, 'an API key', '<API_KEY>'), expected, String(header));
  }
});

test('a token that cannot be a key is told what to check, a well-formed one only that it is not valid', () => {
  const key = generateKey('production');
  const generic = 'The API key is not valid: it is unknown or was revoked';
  const cases: [string | undefined, RegExp | string][] = [
    [undefined, generic],
    [key, generic],
    [generateKey('staging'), generic],
    [key.slice(0, -1), /^The API key looks cut or mistyped: it has 39 characters, and an API key has 40;/],
    [`${key}${key}`, /it has 80 characters/],
    [`"${key}"`, /^The API key is in quotes/],
    [`${key}'`, /^The API key is in quotes/],
    [`\`${key}\``, /^The API key is in quotes/],
    [`Bearer ${key}`, /says Bearer twice/],
    [`bearer\t${key}`, /says Bearer twice/],
    [`${key.slice(0, 10)} ${key.slice(10)}`, /a space inside it/],
    [`${key.slice(0, 12)}.${key.slice(13)}`, /a character no API key has/],
    [`${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`, /fails its checksum/],
    [`ps_admin_${key.slice(8)}`, /an admin token/],
    ['sk_live_abc', /starts with ps_live_ \(production\) or ps_test_ \(staging\)/],
  ];
  for (const [token, expected] of cases) {
    const message = invalidKeyMessage(token);
    if (typeof expected === 'string') assert.equal(message, expected, String(token));
    else assert.match(message, expected, String(token));
    assert.ok(!message.includes(key.slice(8, 20)), `${String(token)}: never echoed`);
  }
});
