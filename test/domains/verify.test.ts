import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { verifyDomain } from '../../src/domains/index.js';
import { createStorage } from '../../src/storage/index.js';
import { startDnsServer, type TestDnsServer, type Zone } from '../support/dns-server.js';
import { runCli } from '../support/process.js';
import { tempDir } from '../support/server.js';

const TARGET = 'target.platform.test';
const TARGET_A = '203.0.113.10';
const TARGET_AAAA = '2001:db8::10';

/** The zones of every case, served by a real DNS server the tests query through node's resolver. */
function zones(): Zone {
  return new Map([
    ['platform.test', { SOA: true }],
    [TARGET, { A: [TARGET_A], AAAA: [TARGET_AAAA] }],
    ['good.test', { SOA: true, A: [TARGET_A], AAAA: [TARGET_AAAA] }],
    ['docs.good.test', { CNAME: TARGET }],
    ['wrong.test', { SOA: true }],
    ['docs.wrong.test', { CNAME: 'other.platform.test' }],
    ['other.platform.test', { A: ['198.51.100.7'] }],
    ['conflict.test', { SOA: true }],
    ['docs.conflict.test', { CNAME: TARGET, A: ['192.0.2.99'] }],
    ['blocked.test', { SOA: true }],
    ['docs.blocked.test', { A: ['192.0.2.50'] }],
    ['badapex.test', { SOA: true, A: ['192.0.2.1'] }],
    ['caa-ok.test', { SOA: true, CAA: [{ tag: 'issue', value: 'letsencrypt.org' }] }],
    ['docs.caa-ok.test', { CNAME: TARGET }],
    [
      'caa-no.test',
      {
        SOA: true,
        CAA: [
          { tag: 'issue', value: 'digicert.com' },
          { tag: 'iodef', value: 'mailto:security@caa-no.test' },
        ],
      },
    ],
    ['docs.caa-no.test', { CNAME: TARGET }],
    ['later.test', { SOA: true }],
    // Whoever runs a zone writes its records: this one's CAA value would clear the operator's screen.
    ['ansi.test', { SOA: true, CAA: [{ tag: 'issue', value: 'evil\u001b[2J\u001b[31m.example' }] }],
    ['docs.ansi.test', { CNAME: TARGET }],
  ]);
}

describe('petstore domains verify, against a real DNS server', () => {
  let dns: TestDnsServer;
  let resolver: Resolver;
  const { dir, remove } = tempDir();
  const env = { DATABASE_URL: `sqlite:${path.join(dir, 'domains.db')}`, LOG_LEVEL: 'silent' };
  const verify = (domain: string, ca = 'letsencrypt.org') =>
    verifyDomain(resolver, { domain, target: TARGET, ca });
  const cli = (...args: string[]) =>
    runCli(['domains', 'verify', ...args, '--target', TARGET, '--resolver', dns.address], env);

  before(async () => {
    // The CLI records verifications in the database a server made; it never makes one.
    assert.equal((await runCli(['migrate'], env)).code, 0);
    dns = await startDnsServer(zones());
    resolver = new Resolver({ timeout: 1_000, tries: 2 });
    resolver.setServers([dns.address]);
  });
  after(async () => {
    await dns.close();
    remove();
  });

  test('a subdomain whose CNAME is the target verifies', async () => {
    const result = await verify('docs.good.test');
    assert.equal(result.kind, 'subdomain');
    assert.deepEqual(result.problems, []);
    assert.equal(result.verified, true);
    assert.ok(result.passed.includes(`CNAME docs.good.test -> ${TARGET}`), result.passed.join('\n'));
  });

  test('a CNAME with another value does not verify, and the fix names the target', async () => {
    const result = await verify('docs.wrong.test');
    assert.equal(result.verified, false);
    assert.deepEqual(result.problems, [
      {
        about: 'dns',
        problem: `The CNAME of docs.wrong.test is other.platform.test, not ${TARGET}`,
        fix: `Change the CNAME record of docs.wrong.test to ${TARGET} (TTL 3600).`,
      },
    ]);
  });

  test('an A record beside the CNAME is named as the conflict', async () => {
    const result = await verify('docs.conflict.test');
    assert.equal(result.verified, false);
    assert.equal(result.problems.length, 1);
    assert.match(
      result.problems[0]?.problem ?? '',
      /docs\.conflict\.test also has A 192\.0\.2\.99, which conflicts/,
    );
    assert.match(
      result.problems[0]?.fix ?? '',
      /Delete the A record\(s\) 192\.0\.2\.99 of docs\.conflict\.test/,
    );
  });

  test('an A record without a CNAME is named as what blocks it', async () => {
    const result = await verify('docs.blocked.test');
    assert.equal(result.verified, false);
    assert.match(result.problems[0]?.problem ?? '', /A 192\.0\.2\.50 and no CNAME/);
    assert.match(
      result.problems[0]?.fix ?? '',
      /then add the record docs\.blocked\.test CNAME target\.platform\.test/,
    );
  });

  test('an apex (it has an SOA record) verifies when it resolves to the target addresses', async () => {
    const result = await verify('good.test');
    assert.equal(result.kind, 'apex');
    assert.deepEqual(result.problems, []);
    assert.equal(result.verified, true);
  });

  test('an apex with other addresses does not verify, and the fix is ALIAS or ANAME', async () => {
    const result = await verify('badapex.test');
    assert.equal(result.kind, 'apex');
    assert.equal(result.verified, false);
    const text = result.problems.map((finding) => `${finding.problem} / ${finding.fix}`).join('\n');
    assert.match(text, /The apex badapex\.test has A 192\.0\.2\.1, not an address of target\.platform\.test/);
    assert.match(text, /no AAAA record/);
    assert.match(text, /ALIAS or ANAME record badapex\.test -> target\.platform\.test/);
  });

  test('CAA records at the parent that allow the CA pass', async () => {
    const result = await verify('docs.caa-ok.test');
    assert.equal(result.verified, true, JSON.stringify(result.problems));
    assert.ok(
      result.passed.includes('CAA records at caa-ok.test allow letsencrypt.org'),
      result.passed.join('\n'),
    );
  });

  test('CAA records that allow only another CA fail, with the record to add', async () => {
    const result = await verify('docs.caa-no.test');
    assert.equal(result.verified, false);
    assert.deepEqual(result.problems, [
      {
        about: 'caa',
        problem:
          'The CAA records at caa-no.test allow only digicert.com, not letsencrypt.org, so no certificate can be issued',
        fix: 'Add a CAA record at caa-no.test: caa-no.test CAA 0 issue "letsencrypt.org" (keep the others your other certificates need).',
      },
    ]);
    assert.equal((await verify('docs.caa-no.test', 'digicert.com')).verified, true, 'the allowed CA passes');
  });

  test('no CAA record anywhere allows every CA', async () => {
    const result = await verify('docs.good.test');
    assert.ok(result.passed.some((line) => line.startsWith('No CAA records')));
  });

  test('a DNS server that does not answer is reported, not taken as "no records"', async () => {
    const silent = new Resolver({ timeout: 200, tries: 1 });
    silent.setServers(['127.0.0.1:9']);
    const result = await verifyDomain(silent, {
      domain: 'docs.good.test',
      target: TARGET,
      ca: 'letsencrypt.org',
    });
    assert.equal(result.verified, false);
    assert.match(result.problems[0]?.problem ?? '', /The DNS query CNAME docs\.good\.test failed/);
  });

  test('the CLI exits 0 for a domain not added, checks it once and adds nothing', async () => {
    const result = await cli('docs.good.test');
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /docs\.good\.test is a subdomain/);
    assert.match(
      result.stdout,
      /Verified docs\.good\.test\. It is not added: petstore domains add docs\.good\.test/,
    );
    const storage = await createStorage({
      kind: 'sqlite',
      file: path.join(dir, 'domains.db'),
      isDefault: false,
      dataDir: dir,
    });
    try {
      assert.deepEqual(await storage.domains.list(), []);
    } finally {
      await storage.close();
    }
  });

  test('--json prints the one object of the check, for a domain not added and for one added', async () => {
    const passed = await cli('docs.good.test', '--json');
    assert.equal(passed.code, 0, passed.stderr);
    const result = JSON.parse(passed.stdout) as { domain: string; verified: boolean; problems: unknown[] };
    assert.deepEqual([result.domain, result.verified, result.problems], ['docs.good.test', true, []]);
    const failed = await cli('docs.caa-no.test', '--json');
    assert.equal(failed.code, 1);
    assert.equal((JSON.parse(failed.stdout) as { verified: boolean }).verified, false);

    assert.equal((await runCli(['domains', 'add', 'added.good.test'], env)).code, 0);
    const added = await runCli(['domains', 'verify', 'added.good.test', '--json'], env);
    const status = await runCli(['domains', 'status', 'added.good.test', '--json'], env);
    const view = JSON.parse(added.stdout) as { name: string; state: string };
    assert.equal(view.name, 'added.good.test');
    assert.deepEqual(view, JSON.parse(status.stdout), 'the object status --json prints');
    assert.equal((await runCli(['domains', 'remove', 'added.good.test'], env)).code, 0);
  });

  test('the CLI exits 1 and prints every failure with its fix', async () => {
    const result = await cli('docs.caa-no.test');
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stdout, /FAIL {2}The CAA records at caa-no\.test allow only digicert\.com/);
    assert.match(
      result.stdout,
      /Fix: Add a CAA record at caa-no\.test: caa-no\.test CAA 0 issue "letsencrypt\.org"/,
    );
  });

  test('wrong arguments exit 2 with one line saying what is wrong', async () => {
    for (const [args, message] of [
      [
        ['domains', 'verify', 'docs.good.test'],
        'docs.good.test is not added; to check its DNS once, give --target (or set DOMAINS_TARGET)',
      ],
      [['domains', 'verify', '--target', TARGET], 'domains verify takes exactly one domain'],
      [
        ['domains', 'verify', 'not a domain', '--target', TARGET],
        '<domain> must be a domain name such as docs.example.com, without scheme, port or path (got "not a domain")',
      ],
      // IP addresses in any of the forms URL parsers read as one are no domain names.
      ...['10.0.0.1', '127.1', '0x7f.1', '1.0x7f'].map(
        (address) =>
          [
            ['domains', 'add', address],
            `<domain> must be a domain name, not an IP address: the last label of a host name is never numeric (RFC 1123) (got "${address}")`,
          ] as const,
      ),
      [
        ['domains', 'add', 'docs.good.test', '--redirect-to', '1.2.3.4'],
        '--redirect-to must be a domain name, not an IP address: the last label of a host name is never numeric (RFC 1123) (got "1.2.3.4")',
      ],
      [
        ['domains', 'verify', 'docs.good.test', '--target', TARGET, '--resolver', 'dns.example:53'],
        '--resolver must be an IP address with an optional port, as 127.0.0.1:53 (got dns.example:53)',
      ],
      [
        ['domains', 'verify', 'docs.good.test', '--target', TARGET, '--wait', '0'],
        '--wait takes a number of seconds from 1 to 999999 (got 0)',
      ],
      [
        ['domains', 'verify', 'docs.good.test', '--target', TARGET, '--wait', '5', '--wait', '9'],
        '--wait is given more than once',
      ],
      [['domains', 'check', 'docs.good.test'], 'unknown domains action: check'],
    ] as const) {
      const result = await runCli([...args], env);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.equal(result.stderr, `petstore: ${message} (see 'petstore domains --help')\n`);
    }
  });

  test("DNS records are printed with anything unprintable escaped: a zone cannot drive the operator's terminal", async () => {
    const result = await cli('docs.ansi.test');
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stdout, /allow only evil\\u\{1b\}\[2j\\u\{1b\}\[31m\.example, not letsencrypt\.org/);
    assert.ok(!result.stdout.includes('\u001b'), 'no escape character reaches the terminal');
  });

  test('without the database the CLI refuses before any DNS query, and creates nothing', async (t) => {
    const { dir: empty, remove: removeEmpty } = tempDir();
    t.after(removeEmpty);
    const file = path.join(empty, 'none.db');
    const result = await runCli(
      ['domains', 'verify', 'docs.good.test', '--target', TARGET, '--resolver', dns.address],
      { DATABASE_URL: `sqlite:${file}` },
    );
    assert.equal(result.code, 1);
    assert.match(result.stderr, /no database at /);
    assert.equal(result.stdout, '', 'no verification was attempted');
    assert.equal(existsSync(file), false);
  });

  test('--wait retries until the DNS change appears', async () => {
    let failedOnce: () => void = () => {};
    const retrying = new Promise<void>((resolve) => {
      failedOnce = resolve;
    });
    const waiting = runCli(
      ['domains', 'verify', 'docs.later.test', '--wait', '20', '--target', TARGET, '--resolver', dns.address],
      env,
      { onStdout: (soFar) => soFar.includes('retrying in') && failedOnce() },
    );
    // The record appears during the 2 s wait after the first attempt: once that attempt has said it failed,
    // not after a fixed time, which a slow machine could spend on the attempt itself.
    await Promise.race([retrying, waiting]);
    dns.zone.set('docs.later.test', { CNAME: TARGET });
    const result = await waiting;
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /not yet: docs\.later\.test has no CNAME record; retrying in 2 s/);
    assert.match(result.stdout, /Verified docs\.later\.test/);
  });
});
