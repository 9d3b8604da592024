import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  checkTarget,
  createSender,
  displayUrl,
  nonPublicRange,
  parseWebhookUrl,
  signedMessage,
  TargetRefused,
} from '../../src/webhooks/index.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/** A public address that nothing here connects to: the checks only resolve it. */
const PUBLIC = '93.184.216.34';

const message = () =>
  signedMessage(
    {
      id: 'evt_t',
      type: 'pet.created',
      createdAt: new Date().toISOString(),
      apiVersion: 'v1',
      data: { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
    },
    ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    new Date(),
  );

const url = (text: string) => {
  const parsed = parseWebhookUrl(text);
  assert.ok(parsed instanceof URL, `${text}: ${String(parsed)}`);
  return parsed;
};

test('an endpoint URL is absolute http(s) with a host and no fragment, and is shown without its credentials', () => {
  assert.equal(parseWebhookUrl('/hooks'), 'the URL is not an absolute URL (https://host/path)');
  assert.equal(parseWebhookUrl('ftp://example.com/'), 'the URL must be http:// or https://');
  assert.equal(parseWebhookUrl('https://example.com/#x'), 'the URL has a fragment (#…), which is never sent');
  assert.match(String(parseWebhookUrl(`https://example.com/${'a'.repeat(2_048)}`)), /longer than 2048/);
  assert.equal(displayUrl(url('https://user:pa55@example.com/h?x=1')), 'https://***:***@example.com/h?x=1');
  assert.equal(displayUrl(url('https://user@example.com/h')), 'https://***@example.com/h');
  assert.equal(displayUrl(url('https://example.com/h')), 'https://example.com/h');
});

test('only public unicast addresses are public; IPv4 inside IPv6 is judged as IPv4', () => {
  const ranges = Object.fromEntries(
    ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1']
      .concat(['::ffff:127.0.0.1', '::ffff:10.0.0.1', 'fd00:ec2::254', 'fe80::1', '2002:7f00:1::1', PUBLIC])
      .concat(['2606:4700::1111', '::ffff:8.8.8.8', '::127.0.0.1', '::a9fe:a9fe', '::10.0.0.1', '::8.8.8.8'])
      .map((address) => [address, nonPublicRange(address)]),
  );
  assert.deepEqual(ranges, {
    '127.0.0.1': 'loopback',
    '10.1.2.3': 'private',
    '172.16.0.1': 'private',
    '192.168.1.1': 'private',
    '169.254.169.254': 'linkLocal',
    '100.64.0.1': 'carrierGradeNat',
    '0.0.0.0': 'unspecified',
    '::1': 'loopback',
    '::ffff:127.0.0.1': 'loopback',
    '::ffff:10.0.0.1': 'private',
    'fd00:ec2::254': 'uniqueLocal',
    'fe80::1': 'linkLocal',
    '2002:7f00:1::1': '6to4',
    [PUBLIC]: undefined,
    '2606:4700::1111': undefined,
    '::ffff:8.8.8.8': undefined,
    // IPv4-compatible (::/96): judged by the low 32 bits, as the mapped form is.
    '::127.0.0.1': 'loopback',
    '::a9fe:a9fe': 'linkLocal',
    '::10.0.0.1': 'private',
    '::8.8.8.8': undefined,
  });
});

describe('targets, checked when an endpoint is made and again at every connection, against a real DNS server', () => {
  let dns: TestDnsServer;
  let receiver: WebhookReceiver;
  before(async () => {
    dns = await startDnsServer(
      new Map([
        ['hooks.test', { A: [PUBLIC] }],
        ['inside.test', { A: ['10.0.0.5'] }],
        ['mixed.test', { A: [PUBLIC, '127.0.0.1'] }],
        ['rebind.test', { A: [PUBLIC] }],
      ]),
    );
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await receiver.close();
    await dns.close();
  });

  test('made: loopback, private, link-local and metadata targets are refused unless allowed', async () => {
    const strict = { allowPrivate: false, resolver: dns.address };
    for (const target of [
      'http://127.0.0.1:9/',
      'http://[::1]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:10.0.0.1]/',
      'http://[::127.0.0.1]/',
      'http://[::a9fe:a9fe]/latest/meta-data/',
      'http://inside.test/',
      'http://mixed.test/',
    ]) {
      await assert.rejects(checkTarget(url(target), strict), TargetRefused, target);
      await checkTarget(url(target), { ...strict, allowPrivate: true });
    }
    await checkTarget(url('https://hooks.test/'), strict);
    await checkTarget(url('https://nowhere.test/'), strict);
  });

  test('sent: a literal loopback target is refused without the setting, and the receiver hears nothing', async () => {
    const strict = createSender({ policy: { allowPrivate: false } });
    try {
      const { body, headers } = message();
      const result = await strict.send(url(`${receiver.url}/`), headers, body);
      assert.equal(result.outcome, 'failed');
      assert.match(String(result.error), /127\.0\.0\.1, a loopback address/);
      assert.equal(receiver.received.length, 0);
    } finally {
      strict.close();
    }
  });

  test('sent: a name whose answer changed to 127.0.0.1 since it was checked is refused at connect', async () => {
    const target = url(`http://rebind.test:${receiver.port}/hooks`);
    await checkTarget(target, { allowPrivate: false, resolver: dns.address });
    dns.zone.set('rebind.test', { A: ['127.0.0.1'] });
    const { body, headers } = message();

    const allowing = createSender({ policy: { allowPrivate: true, resolver: dns.address } });
    const strict = createSender({ policy: { allowPrivate: false, resolver: dns.address } });
    try {
      // The same name, resolved the same way, reaches the receiver when private targets are allowed:
      const allowed = await allowing.send(target, headers, body);
      assert.equal(allowed.outcome, 'delivered');
      assert.equal(receiver.received.length, 1);

      const refused = await strict.send(target, headers, body);
      assert.equal(refused.outcome, 'failed');
      assert.match(String(refused.error), /rebind\.test resolves to 127\.0\.0\.1, a loopback address/);
      assert.equal(receiver.received.length, 1, 'the refused attempt never reached the receiver');
    } finally {
      allowing.close();
      strict.close();
    }
  });
});
