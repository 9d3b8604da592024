import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { hostOf, isDomainName, ownHosts, parseDomains } from '../../src/domains/index.js';

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/);
// The last label starts with a letter: one of digits alone (or 0x and hex digits) makes an IP address.
const topLabel = fc.stringMatching(/^[a-z]([a-z0-9-]{0,20}[a-z0-9])?$/);
const domainName = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), topLabel)
  .map(([labels, top]) => [...labels, top].join('.'));

describe('custom domain values', () => {
  test('hostOf drops the port, the trailing dot and the case, whatever the name', () => {
    fc.assert(
      fc.property(domainName, fc.integer({ min: 1, max: 65535 }), fc.boolean(), (name, port, dot) => {
        const header = `${name.toUpperCase()}${dot ? '.' : ''}:${port}`;
        assert.equal(hostOf(header), name);
        assert.equal(hostOf(name), name);
        assert.ok(isDomainName(name));
      }),
    );
    assert.equal(hostOf('[::1]:8080'), '[::1]');
    assert.equal(hostOf('[::1]'), '[::1]');
    assert.equal(hostOf(''), undefined);
    assert.equal(hostOf(undefined), undefined);
  });

  test('own hosts: loopback, the bound address and the public URLs', () => {
    const hosts = ownHosts({
      host: '::',
      publicUrls: { production: 'https://api.example.test/v1', staging: 'http://10.0.0.5:8080/v1' },
    });
    assert.deepEqual([...hosts].sort(), [
      '10.0.0.5',
      '127.0.0.1',
      '[::1]',
      '[::]',
      'api.example.test',
      'localhost',
    ]);
  });

  test('every bad value is named by its field', () => {
    const { value, problems } = parseDomains({
      primary: 'Docs.Example.test.',
      redirects: [
        { from: 'docs.example.test', to: 'x.example.test', status: 301 },
        { from: 'a.example.test', to: 'a.example.test', status: 308 },
        { from: 'b.example.test', to: 'https://docs.example.test', status: 303 },
      ],
    });
    assert.equal(value, undefined);
    assert.deepEqual(problems, [
      'PETSTORE_CONFIG domains.redirects[0].from is the primary domain docs.example.test',
      'PETSTORE_CONFIG domains.redirects[1] redirects a.example.test to itself',
      'PETSTORE_CONFIG domains.redirects[2].to must be a domain name such as docs.example.com, without scheme, port or path (got "https://docs.example.test")',
      'PETSTORE_CONFIG domains.redirects[2].status must be 301 (the documented status), 302, 307 or 308 (got 303)',
    ]);
  });

  test('a redirect to a domain that is itself redirected is refused, so chains and loops cannot start', () => {
    const { value, problems } = parseDomains({
      primary: 'docs.example.test',
      redirects: [
        { from: 'a.example.test', to: 'b.example.test', status: 301 },
        { from: 'b.example.test', to: 'a.example.test', status: 301 },
      ],
    });
    assert.equal(value, undefined);
    assert.deepEqual(problems, [
      'PETSTORE_CONFIG domains.redirects: a.example.test redirects to b.example.test, which is itself redirected',
      'PETSTORE_CONFIG domains.redirects: b.example.test redirects to a.example.test, which is itself redirected',
    ]);
  });

  test('good values are normalised', () => {
    const { value, problems } = parseDomains({
      primary: 'Docs.Example.test.',
      redirects: [{ from: 'OLD.example.test', to: 'docs.example.test', status: 302 }],
    });
    assert.deepEqual(problems, []);
    assert.equal(value?.primary, 'docs.example.test');
    assert.deepEqual(value?.redirects.get('old.example.test'), {
      from: 'old.example.test',
      to: 'docs.example.test',
      status: 302,
    });
  });
});
