import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, watch } from '../support/browser.js';
import { startFleet } from '../support/fleet.js';
import { runCli } from '../support/process.js';
import { signIn } from './harness.js';

/**
 * The console on two instances of one PostgreSQL + Redis deployment, as behind a balancer: a session made on
 * one is accepted by the other (cookies name a host, not a port, so one browser holds one session for both),
 * a domain added through one is listed by the other, and signing out on one ends the session on both.
 */
describe('the console on two instances over PostgreSQL and Redis', () => {
  let fleet: Awaited<ReturnType<typeof startFleet>>;
  let browser: Browser;
  let pages: [Page, Page];
  const failures: string[] = [];

  before(async () => {
    fleet = await startFleet([0, 0]);
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const open = async (index: number) => {
      const page = await context.newPage();
      const origin = new URL(fleet.servers[index]?.url as string).origin;
      // The console asks who is signed in before anyone is: a 401 there is how it learns.
      await watch(
        page,
        origin,
        failures,
        (status, url) => status === 401 && url.endsWith('/sessions/current'),
      );
      return page;
    };
    pages = [await open(0), await open(1)];
  });
  after(async () => {
    await browser?.close();
    await fleet?.stop();
  });

  const url = (index: number, path: string) => `${fleet.servers[index]?.url}${path}`;

  test('signed in on one, served by the other; a change on one shows on the other; signed out on both', async () => {
    const made = await runCli(['admin-tokens', 'create', '--name', 'fleet', '--json'], fleet.env);
    const { token } = JSON.parse(made.stdout) as { token: string };
    const [first, second] = pages;

    await first.goto(url(0, '/console'));
    await signIn(first, token);
    await first.getByLabel('Domain or subdomain').fill('fleet.shop.test');
    await first.getByRole('button', { name: 'Add', exact: true }).click();
    await first.getByRole('heading', { level: 1, name: 'fleet.shop.test' }).waitFor();

    // The other instance: no sign-in page, the session is its own too, and the domain is there.
    await second.goto(url(1, '/console/domains'));
    await second.getByRole('link', { name: 'fleet.shop.test' }).waitFor();
    assert.equal(await second.getByLabel('Admin token').count(), 0, 'no sign-in on the second instance');

    await second.getByRole('button', { name: 'Sign out' }).click();
    await second.getByLabel('Admin token').waitFor();
    await first.goto(url(0, '/console/keys'));
    await first.getByLabel('Admin token').waitFor();
    assert.deepEqual(failures, []);
  });
});
