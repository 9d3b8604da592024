import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { generateAdminToken, generateKey } from '../../src/keys/index.js';
import { holdsCredential, redactCredentials } from '../../src/log/index.js';
import { newSigningSecret } from '../../src/webhooks/index.js';

/** Percent-encodes the characters `encode` picks, as a client or a proxy may, `%` included when it repeats. */
function percentEncoded(text: string, encode: (index: number) => boolean): string {
  return [...text]
    .map((character, index) =>
      encode(index) ? `%${character.charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()}` : character,
    )
    .join('');
}

/** Whether any 10 characters in a row of the credential's random part survive in `shown`. */
function leaks(shown: string, credential: string): boolean {
  const random = credential.slice(credential.lastIndexOf('_') + 1);
  for (let start = 0; start + 10 <= random.length; start += 1) {
    if (shown.includes(random.slice(start, start + 10))) return true;
  }
  return false;
}

const credentials = fc.constantFrom(
  () => generateKey('production'),
  () => generateKey('staging'),
  () => generateAdminToken(),
  () => newSigningSecret(),
);

test('a credential is redacted whole, in a path or a user agent, however it is percent-encoded, up to four times', () => {
  fc.assert(
    fc.property(
      credentials,
      fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }),
      fc.integer({ min: 0, max: 4 }),
      fc.constantFrom('/v1/pets/', 'my-script key=', '/v1/categories/x/'),
      (make, picks, rounds, before) => {
        const credential = make();
        let text = `${before}${credential}/after`;
        for (let round = 0; round < rounds; round += 1) {
          // The first round encodes the characters picked; later rounds encode the `%` of the one before.
          text =
            round === 0
              ? percentEncoded(text, (index) => index >= before.length && picks[index % 64] === true)
              : text.replaceAll('%', '%25');
        }
        const shown = redactCredentials(text);
        assert.ok(!leaks(shown, credential), `${text} shown as ${shown}`);
        assert.ok(shown.includes('[redacted]'), shown);
        assert.ok(holdsCredential(text));
      },
    ),
    { numRuns: 2_000 },
  );
});

test('the forms the filers met: a secret with + / =, %70s_live_, ps%255flive%255f', () => {
  const key = generateKey('production');
  const secret = 'whsec_Ab+/Cd=Ef+GhIjKlMnOpQrStUvWxYz0123456789+/AB=';
  assert.equal(redactCredentials(`/v1/pets/${secret}`), '/v1/pets/[redacted]');
  assert.equal(redactCredentials(`agent ${secret}`), 'agent [redacted]');
  assert.equal(redactCredentials(`/x/${encodeURIComponent(secret)}`), '/x/[redacted]');
  assert.equal(redactCredentials(`/v1/pets/%70s${key.slice(2)}`), '/v1/pets/[redacted]');
  const twice = key.replaceAll('_', '%255f');
  assert.equal(redactCredentials(`/v1/pets/${twice}`), '/v1/pets/[redacted]');
  // A decoded text shows nothing unprintable: a line break that decoding revealed is encoded again.
  assert.equal(redactCredentials(`/a%0A/%70s${key.slice(2)}`), '/a%0A/[redacted]');
  // Text without a credential is left as it is, encodings included.
  for (const plain of ['/v1/pets/12', '/v1/pets/%20x', '/docs/guides/request_log', 'curl/8.5 ps_x', '100%']) {
    assert.equal(redactCredentials(plain), plain);
    assert.equal(holdsCredential(plain), false);
  }
});
