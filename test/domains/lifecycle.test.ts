import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type DomainView, nextCheckDelay } from '../../src/domains/index.js';
import { handshake, startCaddy, type TestCaddy } from '../support/caddy.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { startFleet } from '../support/fleet.js';
import { freePort, runCli } from '../support/process.js';
import { getWithHost, type JsonResponse, request, startTestServer, tempDir } from '../support/server.js';

const TARGET = 'edge.platform.test';
const ASK = '/internal/tls/ask';
const MINUTE = 60_000;

/** A clock the test moves: the schedules and the 30 minutes of a certificate run on it. */
function fakeClock() {
  const clock = { at: Date.now(), now: () => clock.at };
  return clock;
}

/** A server whose domains are checked against `dns`, with the TLS front at `tlsPort`, on a fake clock. */
async function startDomainServer(
  dns: TestDnsServer,
  tlsPort: number,
  clock: { now: () => number },
  env: Record<string, string> = {},
) {
  const server = await startTestServer(
    {
      DOMAINS_TARGET: TARGET,
      DNS_RESOLVER: dns.address,
      TLS_CHECK_ADDRESS: `127.0.0.1:${tlsPort}`,
      ...env,
    },
    { clock },
  );
  const { token } = await server.createAdminToken('domains test');
  const admin = (method: string, path: string, body?: unknown): Promise<JsonResponse> =>
    request(`${server.url}/admin/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return {
    server,
    admin,
    status: async (name: string) => (await admin('GET', `/domains/${name}`)).body as DomainView,
    /** Runs the checks that are due, as the timer would; resolves with how many were checked. */
    checkNow: () => server.deps.domains.checks.runNow(),
    ask: async (name: string) => {
      await server.deps.domains.registry.refresh();
      return (await request(`${server.url}${ASK}?domain=${name}`)).status;
    },
  };
}

describe('custom domains as a lifecycle, with a real DNS server and a real Caddy', () => {
  const { dir, remove } = tempDir('petstore-lifecycle-');
  const clock = fakeClock();
  let dns: TestDnsServer;
  let caddy: TestCaddy;
  let domains: Awaited<ReturnType<typeof startDomainServer>>;

  before(async () => {
    dns = await startDnsServer(new Map([[TARGET, { A: ['127.0.0.1'] }]]));
    const caddyPort = await freePort();
    domains = await startDomainServer(dns, caddyPort, clock);
    const port = new URL(domains.server.url).port;
    caddy = await startCaddy({
      dir,
      upstream: `127.0.0.1:${port}`,
      port: caddyPort,
    });
  });
  after(async () => {
    await caddy?.stop();
    await domains?.server.close();
    await dns?.close();
    remove();
  });

  test('add -> pending (with the reason) -> verified -> certificate -> active; a broken zone -> misconfigured', async () => {
    const added = await domains.admin('POST', '/domains', { name: 'docs.shop.test', primary: true });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const view = added.body as DomainView;
    assert.equal(view.state, 'pending');
    assert.deepEqual(
      view.dns.map((record) => `${record.name} ${record.type} ${record.required}`),
      ['docs.shop.test CNAME true', '_petstore-challenge.docs.shop.test TXT false'],
    );

    assert.equal(await domains.checkNow(), 1);
    let now = await domains.status('docs.shop.test');
    assert.equal(now.state, 'pending');
    assert.equal(now.lastCheck, 'failed');
    assert.match(now.reason, /docs\.shop\.test has no CNAME record/);
    assert.match(now.fix ?? '', /Add the record docs\.shop\.test CNAME edge\.platform\.test/);
    assert.equal(await domains.ask('docs.shop.test'), 404, 'no certificate while pending');
    await assert.rejects(handshake(caddy.port, 'docs.shop.test'), 'Caddy was refused');
    assert.equal(await domains.checkNow(), 0, 'not due again within the minute');

    dns.zone.set('docs.shop.test', { CNAME: TARGET });
    clock.at += MINUTE;
    assert.equal(await domains.checkNow(), 1);
    now = await domains.status('docs.shop.test');
    assert.equal(now.state, 'verified', now.reason);
    assert.equal(await domains.ask('docs.shop.test'), 200);

    // The next check asks Caddy for the name: it asks us, gets its certificate on demand, and serves it.
    clock.at += MINUTE;
    assert.equal(await domains.checkNow(), 1);
    now = await domains.status('docs.shop.test');
    assert.equal(now.state, 'active', `${now.reason}\n${caddy.output.join('')}`);
    assert.match(now.certificate?.issuer ?? '', /Caddy/);
    assert.ok(Date.parse(now.certificate?.expiresAt ?? '') > clock.at, 'valid after now');
    assert.equal(Date.parse(now.nextCheckAt) - clock.at, 24 * 60 * MINUTE, 'active domains daily');

    // The CLI shows the very object the admin API does.
    const cli = await runCli(['domains', 'status', 'docs.shop.test', '--json'], domains.server.env);
    assert.equal(cli.code, 0, cli.stderr);
    assert.deepEqual(JSON.parse(cli.stdout), now);

    dns.zone.set('docs.shop.test', { CNAME: 'elsewhere.example.test' });
    clock.at += 24 * 60 * MINUTE;
    assert.equal(await domains.checkNow(), 1);
    now = await domains.status('docs.shop.test');
    assert.equal(now.state, 'misconfigured');
    assert.match(
      now.reason,
      /The CNAME of docs\.shop\.test is elsewhere\.example\.test, not edge\.platform\.test/,
    );
    assert.equal(await domains.ask('docs.shop.test'), 404, 'no certificate once DNS moved away');

    const events = (await domains.admin('GET', '/audit?target=docs.shop.test')).body as {
      action: string;
      actor: string;
      details: { to?: string };
    }[];
    assert.deepEqual(
      events.map((event) => `${event.action} ${event.details.to ?? ''}`.trim()),
      [
        'domain.added',
        'domain.state_changed verified',
        'domain.state_changed active',
        'domain.state_changed misconfigured',
      ],
    );
    assert.ok(events.slice(1).every((event) => event.actor === 'checker'));
    const metrics = (await request(`${domains.server.url}/metrics`)).text;
    assert.match(metrics, /^petstore_domains\{state="misconfigured"\} 1$/m);
  });

  test('a pending domain is re-checked every minute for an hour, then every 10 minutes', async () => {
    await domains.admin('POST', '/domains', { name: 'later.shop.test' });
    const nextIn = async () => {
      const view = await domains.status('later.shop.test');
      return Date.parse(view.nextCheckAt) - Date.parse(view.checkedAt ?? '');
    };
    await domains.checkNow();
    assert.equal(await nextIn(), MINUTE);
    clock.at += 61 * MINUTE;
    await domains.checkNow();
    assert.equal(await nextIn(), 10 * MINUTE);
    assert.equal(nextCheckDelay('pending', 2 * 24 * 60 * MINUTE, 'failed'), 60 * MINUTE);
    assert.equal(nextCheckDelay('pending', 8 * 24 * 60 * MINUTE, 'failed'), 24 * 60 * MINUTE);
    assert.equal(nextCheckDelay('certificate_failed', 0, 'failed'), 60 * MINUTE);
    assert.equal(nextCheckDelay('active', 0, 'could_not_check'), MINUTE, 'no answer: try again soon');
  });
});

describe('custom domains without a certificate, or without their ownership record', () => {
  const clock = fakeClock();
  let dns: TestDnsServer;
  let domains: Awaited<ReturnType<typeof startDomainServer>>;
  let txt: Awaited<ReturnType<typeof startDomainServer>>;

  before(async () => {
    dns = await startDnsServer(
      new Map([
        [TARGET, { A: ['127.0.0.1'] }],
        ['caa.test', { SOA: true, CAA: [{ tag: 'issue', value: 'digicert.com' }] }],
        ['docs.caa.test', { CNAME: TARGET }],
        ['docs.owned.test', { CNAME: TARGET }],
      ]),
    );
    // Nothing serves TLS there: no certificate will ever be seen.
    const closed = await freePort();
    domains = await startDomainServer(dns, closed, clock);
    txt = await startDomainServer(dns, closed, clock, { DOMAINS_REQUIRE_TXT: 'on' });
  });
  after(async () => {
    await domains?.server.close();
    await txt?.server.close();
    await dns?.close();
  });

  test('verified for 30 minutes without a certificate -> certificate_failed, naming the CAA record that forbids the CA', async () => {
    const added = await runCli(['domains', 'add', 'docs.caa.test'], domains.server.env);
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /docs\.caa\.test CNAME edge\.platform\.test/);
    // The CLI added it on the real clock, which may be ahead of the test's.
    clock.at = Math.max(clock.at, Date.now());
    await domains.checkNow();
    assert.equal((await domains.status('docs.caa.test')).state, 'verified');
    clock.at += 29 * MINUTE;
    await domains.checkNow();
    assert.equal((await domains.status('docs.caa.test')).state, 'verified', 'within its 30 minutes');
    clock.at += 2 * MINUTE;
    await domains.checkNow();
    const failed = await domains.status('docs.caa.test');
    assert.equal(failed.state, 'certificate_failed');
    assert.match(failed.reason, /within 30 minutes of verification/);
    assert.match(
      failed.reason,
      /The CAA records at caa\.test allow only digicert\.com, not letsencrypt\.org/,
    );
    assert.match(failed.fix ?? '', /caa\.test CAA 0 issue "letsencrypt\.org"/);

    // Re-verify starts a new attempt: 30 minutes more.
    const again = await domains.admin('POST', '/domains/docs.caa.test/verify');
    assert.equal((again.body as DomainView).state, 'verified');
  });

  test('a resolver that does not answer is recorded as "could not check", never as a failure', async () => {
    const before = await domains.status('docs.caa.test');
    await dns.close();
    try {
      clock.at += 2 * MINUTE;
      await domains.checkNow();
      const after = await domains.status('docs.caa.test');
      assert.equal(after.state, before.state);
      assert.equal(after.stateSince, before.stateSince);
      assert.equal(after.lastCheck, 'could_not_check');
      assert.match(after.reason, /^Could not check: /);
    } finally {
      dns = await startDnsServer(dns.zone, Number(dns.address.split(':')[1]));
    }
  });

  test('with DOMAINS_REQUIRE_TXT=on a domain stays pending until its ownership record holds its token', async () => {
    const added = (await txt.admin('POST', '/domains', { name: 'docs.owned.test' })).body as DomainView;
    const challenge = added.dns.find((record) => record.type === 'TXT');
    assert.equal(challenge?.required, true);
    await txt.checkNow();
    const pending = await txt.status('docs.owned.test');
    assert.equal(pending.state, 'pending');
    assert.match(pending.reason, /_petstore-challenge\.docs\.owned\.test has no TXT record/);
    dns.zone.set('_petstore-challenge.docs.owned.test', { TXT: ['someone else'] });
    clock.at += MINUTE;
    await txt.checkNow();
    assert.match((await txt.status('docs.owned.test')).reason, /do not hold this domain's token/);
    dns.zone.set('_petstore-challenge.docs.owned.test', { TXT: [challenge?.value ?? ''] });
    clock.at += MINUTE;
    await txt.checkNow();
    assert.equal((await txt.status('docs.owned.test')).state, 'verified');
  });

  test('the admin API refuses what cannot be served: 400 for bad names, 409 for a name taken, 404 for none', async () => {
    assert.equal((await domains.admin('POST', '/domains', { name: 'not a domain' })).status, 400);
    assert.equal(
      (await domains.admin('POST', '/domains', { name: 'x.caa.test', redirectTo: 'x.caa.test' })).status,
      400,
    );
    assert.equal((await domains.admin('POST', '/domains', { name: 'docs.caa.test' })).status, 409);
    assert.equal((await domains.admin('GET', '/domains/none.caa.test')).status, 404);
    assert.equal((await domains.admin('DELETE', '/domains/none.caa.test')).status, 404);
  });

  test('a domain others redirect to is not removed while they do: 409 naming them, through the API and the CLI', async () => {
    assert.equal((await domains.admin('POST', '/domains', { name: 'to.caa.test' })).status, 201);
    for (const from of ['a.from.caa.test', 'b.from.caa.test']) {
      const added = await domains.admin('POST', '/domains', { name: from, redirectTo: 'to.caa.test' });
      assert.equal(added.status, 201, added.text);
    }
    const refused = await domains.admin('DELETE', '/domains/to.caa.test');
    assert.equal(refused.status, 409);
    assert.equal(
      (refused.body as { message: string }).message,
      'to.caa.test is the target of the redirects of a.from.caa.test, b.from.caa.test: remove those first',
    );
    const cli = await runCli(['domains', 'remove', 'to.caa.test'], domains.server.env);
    assert.equal(cli.code, 1);
    assert.match(
      cli.stdout,
      /to\.caa\.test is the target of the redirects of a\.from\.caa\.test, b\.from\.caa\.test/,
    );
    assert.equal((await domains.status('to.caa.test')).name, 'to.caa.test', 'still there');
    for (const from of ['a.from.caa.test', 'b.from.caa.test']) {
      assert.equal((await domains.admin('DELETE', `/domains/${from}`)).status, 200);
    }
    assert.equal((await domains.admin('DELETE', '/domains/to.caa.test')).status, 200);
  });
});

describe('removing a domain stops it on every instance of a PostgreSQL pair at once', () => {
  let dns: TestDnsServer;
  let fleet: Awaited<ReturnType<typeof startFleet>>;

  before(async () => {
    dns = await startDnsServer(
      new Map([
        [TARGET, { A: ['127.0.0.1'] }],
        ['docs.pair.test', { CNAME: TARGET }],
        ['www.pair.test', { CNAME: TARGET }],
      ]),
    );
    fleet = await startFleet([0, 0], {
      DOMAINS_TARGET: TARGET,
      DNS_RESOLVER: dns.address,
      TLS_CHECK_ADDRESS: `127.0.0.1:${await freePort()}`,
    });
  });
  after(async () => {
    await fleet?.stop();
    await dns?.close();
  });

  test('ask 404 and 421 on both within 1 s of domains remove, which warns that DNS still points here', async () => {
    for (const args of [
      ['domains', 'add', 'docs.pair.test', '--primary'],
      ['domains', 'add', 'www.pair.test'],
      ['domains', 'verify', 'docs.pair.test'],
      ['domains', 'verify', 'www.pair.test'],
    ]) {
      const result = await runCli(args, fleet.env);
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stdout}${result.stderr}`);
    }
    const ask = (url: string) => request(`${url}${ASK}?domain=www.pair.test`);
    const reference = (url: string) => getWithHost(url, 'www.pair.test', '/openapi.json');
    for (const { url } of fleet.servers) {
      const deadline = Date.now() + 3_000;
      while ((await ask(url)).status !== 200) {
        assert.ok(Date.now() < deadline, `${url} serves www.pair.test`);
        await sleep(50);
      }
      assert.equal((await reference(url)).status, 200);
    }

    const removed = await runCli(['domains', 'remove', 'www.pair.test'], fleet.env);
    const done = Date.now();
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /Warning: the DNS of www\.pair\.test still points here/);
    for (const { url } of fleet.servers) {
      while ((await ask(url)).status !== 404 || (await reference(url)).status !== 421) {
        assert.ok(
          Date.now() - done < 1_000,
          `${url} stopped serving www.pair.test within 1 s: ask ${(await ask(url)).status}, reference ${(await reference(url)).status}`,
        );
        await sleep(20);
      }
    }
    assert.equal((await request(`${fleet.servers[0]?.url}${ASK}?domain=docs.pair.test`)).status, 200);
  });
});
