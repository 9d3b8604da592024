import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, watch } from '../support/browser.js';
import { startFleet } from '../support/fleet.js';
import { runCli } from '../support/process.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { signIn } from './harness.js';

/**
 * The console on two instances of one PostgreSQL + Redis deployment, behind a balancer (a proxy that moves the
 * browser from one instance to the other): a session made on one is accepted by the other, a domain added
 * through one is listed by the other, and signing out on one ends the session on both. Each instance's own
 * port is another origin, which shares the cookie (cookies are not scoped by port) but not the session's
 * second secret: there the console asks for a sign-in.
 */
describe('the console on two instances over PostgreSQL and Redis', () => {
  let fleet: Awaited<ReturnType<typeof startFleet>>;
  let balancer: TcpProxy;
  let browser: Browser;
  let pages: [Page, Page];
  const failures: string[] = [];
  const instance = (index: number) => {
    const { hostname, port } = new URL(fleet.servers[index]?.url as string);
    return { host: hostname, port: Number(port) };
  };

  before(async () => {
    fleet = await startFleet([0, 0]);
    balancer = await startTcpProxy(instance(0));
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const open = async (origin: string) => {
      const page = await context.newPage();
      // The console asks who is signed in before anyone is: a 401 there is how it learns.
      await watch(
        page,
        origin,
        failures,
        (status, url) => status === 401 && url.endsWith('/sessions/current'),
      );
      return page;
    };
    pages = [await open(`http://127.0.0.1:${balancer.port}`), await open(new URL(url(1, '')).origin)];
  });
  after(async () => {
    await browser?.close();
    await balancer?.close();
    await fleet?.stop();
  });

  const url = (index: number, path: string) => `${fleet.servers[index]?.url}${path}`;
  const behindBalancer = (path: string) => `http://127.0.0.1:${balancer.port}${path}`;

  test('signed in on one, served by the other; a change on one shows on the other; signed out on both', async () => {
    const made = await runCli(['admin-tokens', 'create', '--name', 'fleet', '--json'], fleet.env);
    const { token } = JSON.parse(made.stdout) as { token: string };
    const [page, elsewhere] = pages;

    await page.goto(behindBalancer('/console'));
    await signIn(page, token);
    await page.getByLabel('Domain or subdomain').fill('fleet.shop.test');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'fleet.shop.test' }).waitFor();

    // The balancer moves the browser to the other instance (while the page is away, so that no request is cut
    // in flight): no sign-in page, the session is the other's too, and the domain is there.
    await page.goto('about:blank');
    balancer.retarget(instance(1));
    await page.goto(behindBalancer('/console/domains'));
    await page.getByRole('link', { name: 'fleet.shop.test' }).waitFor();
    assert.equal(await page.getByLabel('Admin token').count(), 0, 'no sign-in on the second instance');

    // The instance's own port is another origin: the browser sends it the cookie, but the console there has
    // not the session's second secret, so it asks for a sign-in.
    await elsewhere.goto(url(1, '/console/domains'));
    await elsewhere.getByLabel('Admin token').waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin token').waitFor();
    await page.goto('about:blank');
    balancer.retarget(instance(0));
    await page.goto(behindBalancer('/console/keys'));
    await page.getByLabel('Admin token').waitFor();
    assert.deepEqual(failures, []);
  });
});
