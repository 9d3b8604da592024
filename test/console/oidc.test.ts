import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { eventually } from '../support/assertions.js';
import {
  isCallback,
  type OidcHarness,
  oidcEnv,
  sessionOf,
  startIdentityProvider,
  startOidcHarness,
  type TestIdentityProvider,
  throughProvider,
} from '../support/oidc-provider.js';
import { request, startTestServer, type TestServer } from '../support/server.js';
import { assertAccessible, createTokenOnPage, inspectPage } from './harness.js';

/** A new browser context at the console of `base`, its page watched for uncaught errors. */
async function openConsole(browser: Browser, base: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${base}/console`);
  return { context, page, errors };
}

describe('sign-in with an OpenID Connect provider', () => {
  let h: OidcHarness;
  let token: string;

  before(async () => {
    h = await startOidcHarness(
      {
        olivia: { email: 'olivia@example.com', name: 'Olivia Owner', groups: ['petstore-owners'] },
        victor: { email: 'victor@example.com', name: 'Victor Viewer', groups: ['petstore-viewers', 'staff'] },
        mallory: { email: 'mallory@example.com', name: 'Mallory', groups: ['marketing'] },
        sam: { email: 'sam@example.com', name: 'Sam Support', groups: ['petstore-support'] },
        otto: { email: 'otto@example.com', name: 'Otto Leaver', groups: ['petstore-owners'] },
      },
      // A person's session asks the provider again a second after it last did, so that a test sees it.
      { OIDC_RECHECK_MS: '1000' },
    );
    token = (await h.server.createAdminToken('break glass')).token;
  });
  after(() => h?.close());

  /** A new browser at the console's sign-in page. */
  async function newBrowserAtSignIn() {
    const opened = await openConsole(h.browser, h.server.url);
    await opened.page.getByRole('heading', { name: 'Pet Store console' }).waitFor();
    return opened;
  }

  test('the sign-in page offers the provider first, and keeps the token form as the break-glass path', async () => {
    const { context, page, errors } = await newBrowserAtSignIn();
    const first = page.locator('main a, main button, main input').first();
    assert.equal(await first.textContent(), 'Sign in with Test IdP');
    await page.getByRole('textbox', { name: 'Admin token' }).waitFor();
    await inspectPage(page, 'oidc-sign-in');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('an owner signs in through the provider: a session with the person and their groups’ role, audited as them', async () => {
    const { context, page, errors } = await newBrowserAtSignIn();
    await throughProvider(page, 'olivia');
    await page.getByText('Signed in as Olivia Owner (owner)').waitFor();
    // The second secret came in the URL's fragment, and is gone from the address bar.
    assert.equal(new URL(page.url()).hash, '');
    const headers = await sessionOf(context, page);
    const current = await request(`${h.server.url}/admin/v1/sessions/current`, { headers });
    assert.equal(current.status, 200, current.text);
    const session = current.body as {
      tokenId: null;
      person: { id: string; email: string; subject: string };
      role: string;
    };
    assert.equal(session.tokenId, null);
    assert.equal(session.role, 'owner');
    assert.deepEqual(
      { email: session.person.email, subject: session.person.subject },
      { email: 'olivia@example.com', subject: 'olivia' },
    );
    assert.match(session.person.id, /^per_[0-9A-Za-z]{12}$/);

    // What she does is hers in the audit: her id, subject and email.
    const made = await request(`${h.server.url}/admin/v1/keys`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', origin: new URL(h.server.url).origin },
      body: JSON.stringify({ plan: 'free', name: 'by olivia' }),
    });
    assert.equal(made.status, 201, made.text);
    const audit = await h.server.admin(token, '/audit?actorKind=person&order=desc');
    const entry = (audit.body as Record<string, unknown>[]).find((row) => row.action === 'key.created');
    assert.ok(entry, audit.text);
    assert.equal(entry.actor, session.person.id);
    assert.equal(entry.actorName, 'Olivia Owner');
    assert.equal(entry.actorSubject, 'olivia');
    assert.equal(entry.actorEmail, 'olivia@example.com');

    // The People page: who signed in, when, with which role.
    await page.getByRole('link', { name: 'People' }).click();
    await page.getByRole('heading', { level: 1, name: 'People' }).waitFor();
    await page.getByRole('rowheader', { name: /Olivia Owner/ }).waitFor();
    await inspectPage(page, 'oidc-people');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a viewer’s session has the viewer role on every call: a create is 403 insufficient_role, audited', async () => {
    const { context, page } = await newBrowserAtSignIn();
    await throughProvider(page, 'victor');
    await page.getByText('Signed in as Victor Viewer (viewer)').waitFor();
    // A viewer is not offered the People page, which is the owner's; opened by its URL, it says who gives that.
    assert.equal(await page.getByRole('link', { name: 'People' }).count(), 0);
    await page.goto(`${h.server.url}/console/people`);
    await page
      .getByText(/^The People page needs the owner role\. Your groups at .+ give you the viewer role/)
      .waitFor();
    await page
      .getByText(
        /ask an owner of this console to add you to a group that gives the owner role, then sign in again/,
      )
      .waitFor();
    const headers = await sessionOf(context, page);
    const origin = new URL(h.server.url).origin;
    const listed = await request(`${h.server.url}/admin/v1/keys`, { headers });
    assert.equal(listed.status, 200);
    const refused = await request(`${h.server.url}/admin/v1/keys`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', origin },
      body: JSON.stringify({ plan: 'free', name: 'by victor' }),
    });
    assert.equal(refused.status, 403, refused.text);
    assert.equal((refused.body as { code: string }).code, 'insufficient_role');
    assert.match(
      (refused.body as { message: string }).message,
      /needs the admin role or above; you have the viewer role/,
    );
    const people = await request(`${h.server.url}/admin/v1/people`, { headers });
    assert.equal(people.status, 403);
    const audit = await h.server.admin(token, '/audit?order=desc&limit=20');
    const entry = (audit.body as Record<string, unknown>[]).find(
      (row) => row.action === 'access.refused' && row.target === 'createApiKey',
    );
    assert.ok(entry, audit.text);
    assert.equal(entry.actorKind, 'person');
    assert.equal(entry.actorEmail, 'victor@example.com');
    await context.close();
  });

  test('a person none of whose groups gives a role is refused with a page that says why, and audited', async () => {
    const { context, page } = await newBrowserAtSignIn();
    await throughProvider(page, 'mallory');
    await page.getByRole('heading', { name: 'No role for you here' }).waitFor();
    await page.getByText(/none of your groups gives a role/).waitFor();
    await page.getByText(/marketing/).waitFor();
    await inspectPage(page, 'oidc-refused');
    assert.equal(
      (await context.cookies()).some((cookie) => cookie.name === 'petstore_session'),
      false,
    );
    const audit = await h.server.admin(token, '/audit?order=desc&limit=20');
    const entry = (audit.body as Record<string, unknown>[]).find((row) => row.action === 'session.refused');
    assert.ok(entry, audit.text);
    assert.equal(entry.target, 'mallory');
    await context.close();
  });

  test('a replayed, altered or elsewhere-started callback is refused and signs nobody in', async () => {
    const { context, page } = await newBrowserAtSignIn();
    // The provider's return, as an attacker who saw it could replay or alter it.
    let callback = '';
    page.on('request', (sent) => {
      if (isCallback(new URL(sent.url()))) callback = sent.url();
    });
    await throughProvider(page, 'olivia');
    await page.getByText('Signed in as Olivia Owner (owner)').waitFor();
    const genuine = new URL(callback);
    assert.ok(genuine.searchParams.get('state') && genuine.searchParams.get('code'));

    // Another browser, which never started a sign-in, is refused and gets no session.
    const other = await h.browser.newContext();
    const otherPage = await other.newPage();
    assert.equal((await otherPage.goto(genuine.href))?.status(), 400);
    await otherPage
      .getByRole('heading', { name: /This sign-in (was started elsewhere|has ended)/ })
      .waitFor();
    assert.equal(
      (await other.cookies()).some((cookie) => cookie.name === 'petstore_session'),
      false,
    );
    await other.close();

    // Replayed in the browser that made it: its state was spent by the sign-in.
    assert.equal((await page.goto(genuine.href))?.status(), 400);
    await page.getByRole('heading', { name: 'This sign-in has ended' }).waitFor();

    // Altered: a state the service never issued, or a code with no state at all.
    const altered = new URL(genuine);
    altered.searchParams.set('state', `${genuine.searchParams.get('state')}x`);
    assert.equal((await page.goto(altered.href))?.status(), 400);
    const stateless = new URL(genuine);
    stateless.searchParams.delete('state');
    assert.equal((await page.goto(stateless.href))?.status(), 400);
    await assertAccessible(page, 'a refused callback');
    await context.close();
  });

  test('a callback carrying another sign-in’s code fails PKCE at the provider and signs nobody in', async () => {
    /** A sign-in in a new browser, up to the provider's redirect back, which is kept and never followed. */
    const heldBack = async () => {
      const browsing = await newBrowserAtSignIn();
      let held = '';
      // The consent's POST is the last request the page makes to the provider; the redirects after it are
      // followed here, by the context's own request client (its cookies), up to the one back to us.
      await browsing.page.route(
        (url) => url.origin === h.idp.issuer,
        async (route) => {
          if (!(route.request().postData() ?? '').includes('prompt=consent')) return route.continue();
          let answer = await route.fetch({ maxRedirects: 0 });
          for (let hop = 0; hop < 5 && !held; hop += 1) {
            const location = new URL(answer.headers().location ?? '', h.idp.issuer);
            if (location.pathname === '/console/oidc/callback') held = location.href;
            else answer = await browsing.context.request.get(location.href, { maxRedirects: 0 });
          }
          return route.abort();
        },
      );
      await throughProvider(browsing.page, 'olivia').catch(() => undefined);
      await eventually('the provider’s redirect back', () => held !== '');
      return { ...browsing, held: new URL(held) };
    };
    const first = await heldBack();
    const second = await heldBack();
    // The second sign-in's state (live, and its browser's) with the first one's code: that code was issued
    // for the first sign-in's PKCE challenge.
    const swapped = new URL(second.held);
    swapped.searchParams.set('code', first.held.searchParams.get('code') as string);
    // A new tab of the second browser (same cookies): the first tab is still on the aborted consent.
    const tab = await second.context.newPage();
    assert.equal((await tab.goto(swapped.href))?.status(), 400);
    await tab.getByRole('heading', { name: 'Sign-in failed' }).waitFor();
    // The provider refused the code (invalid_grant): its PKCE challenge is the first sign-in's, and this
    // sign-in's verifier does not answer it.
    const refusal = h.server.logs.filter((line) => line.includes('failed its checks')).at(-1) ?? '';
    assert.match(refusal, /"error":"invalid_grant"/);
    assert.equal(
      (await second.context.cookies()).some((cookie) => cookie.name === 'petstore_session'),
      false,
    );
    await first.context.close();
    await second.context.close();
  });

  test('a sign-in cancelled at the provider says so; a forged refusal shows none of its words', async () => {
    const { context, page } = await newBrowserAtSignIn();
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
    await page.getByRole('link', { name: '[ Cancel ]' }).click();
    await page.getByRole('heading', { name: 'Sign-in refused' }).waitFor();
    await page.getByText(/Test IdP did not sign you in: .+\./).waitFor();
    await assertAccessible(page, 'the provider’s refusal');

    const forged = new URL(`${h.server.url}/console/oidc/callback`);
    forged.searchParams.set('error', 'access_denied');
    forged.searchParams.set('error_description', 'Your account is locked: call 555-0100');
    assert.equal((await page.goto(forged.href))?.status(), 403);
    await page.getByText('Test IdP did not sign you in.').waitFor();
    assert.equal(await page.getByText(/555-0100/).count(), 0);
    await context.close();
  });

  test('an owner ends a person’s sessions from the People page; a removed group ends them at the next check', async () => {
    const sam = await newBrowserAtSignIn();
    await throughProvider(sam.page, 'sam');
    await sam.page.getByText('Signed in as Sam Support (support)').waitFor();
    const samHeaders = await sessionOf(sam.context, sam.page);

    const owner = await newBrowserAtSignIn();
    await throughProvider(owner.page, 'olivia');
    await owner.page.getByText('Signed in as Olivia Owner (owner)').waitFor();
    await owner.page.goto(`${h.server.url}/console/people`);
    await owner.page.getByRole('button', { name: 'End sessions of Sam Support' }).click();
    await owner.page.getByRole('button', { name: 'End sessions', exact: true }).click();
    await eventually('Sam’s session refused', async () => {
      const current = await request(`${h.server.url}/admin/v1/sessions/current`, { headers: samHeaders });
      return current.status === 401;
    });
    const audit = await h.server.admin(token, '/audit?order=desc&limit=20');
    assert.ok((audit.body as { action: string }[]).some((row) => row.action === 'person.sessions_ended'));

    // Sam signs in again (a new browser: the provider would remember the last one); then the provider
    // takes Sam out of every group that gives a role.
    const samAgain = await newBrowserAtSignIn();
    await throughProvider(samAgain.page, 'sam');
    await samAgain.page.getByText('Signed in as Sam Support (support)').waitFor();
    const again = await sessionOf(samAgain.context, samAgain.page);
    const account = h.idp.accounts.get('sam');
    assert.ok(account);
    account.groups = ['alumni'];
    await eventually(
      'the session ends at its next check with the provider',
      async () =>
        (await request(`${h.server.url}/admin/v1/sessions/current`, { headers: again })).status === 401,
      10_000,
    );
    const ended = await h.server.admin(token, '/audit?order=desc&limit=20');
    const entry = (ended.body as Record<string, unknown>[]).find(
      (row) => row.action === 'session.ended' && row.actorEmail === 'sam@example.com',
    );
    assert.ok(entry, ended.text);
    assert.match(String((entry.details as { reason?: string }).reason), /groups/);
    await sam.context.close();
    await samAgain.context.close();
    await owner.context.close();
  });
});

describe('offboarding on the People page', () => {
  let h: OidcHarness;

  before(async () => {
    h = await startOidcHarness({
      olivia: { email: 'olivia@example.com', name: 'Olivia Owner', groups: ['petstore-owners'] },
      otto: { email: 'otto@example.com', name: 'Otto Leaver', groups: ['petstore-owners'] },
    });
  });
  after(() => h?.close());

  /** A new browser signed in through the provider as `login`, watched for page errors. */
  async function signedIn(login: string, name: string) {
    const opened = await openConsole(h.browser, h.server.url);
    await throughProvider(opened.page, login);
    await opened.page.getByText(`Signed in as ${name} (owner)`).waitFor();
    return opened;
  }

  test('the People page lists the tokens a person made; End sessions offers to revoke them, saying how many', async () => {
    // Otto makes a token on the Admin tokens page, which says he made it; and one more with it.
    const otto = await signedIn('otto', 'Otto Leaver');
    await otto.page.goto(`${h.server.url}/console/admin-tokens`);
    const deploy = await createTokenOnPage(otto.page, 'otto deploy', 'owner');
    h.server.issuedKeys.push(deploy);
    await otto.page
      .getByRole('row', { name: /otto deploy/ })
      .getByRole('cell', { name: 'Otto Leaver (person)' })
      .waitFor();
    await inspectPage(otto.page, 'admin-tokens-made-by');
    const backup = await h.server.admin(deploy, '/admin-tokens', {
      method: 'POST',
      json: { name: 'otto backup', role: 'viewer' },
    });
    assert.equal(backup.status, 201, backup.text);
    const backupToken = (backup.body as { token: string }).token;
    h.server.issuedKeys.push(backupToken);

    // Olivia, an owner, sees them on the People page, with the one made through the other.
    const owner = await signedIn('olivia', 'Olivia Owner');
    await owner.page.goto(`${h.server.url}/console/people`);
    const row = owner.page.getByRole('row', { name: /Otto Leaver/ });
    await row.getByRole('listitem').nth(1).waitFor();
    const listed = await row.getByRole('listitem').allTextContents();
    assert.match(listed[0] ?? '', /^otto deploy \(owner\)adm_\w{12}, made [\d-]+ [\d:]+ UTC$/);
    assert.match(
      listed[1] ?? '',
      /^otto backup \(viewer\)adm_\w{12}, made [\d-]+ [\d:]+ UTC, through otto deploy$/,
    );
    await inspectPage(owner.page, 'people-tokens');

    // Ending his sessions alone leaves his tokens: the box is off until asked.
    await owner.page.getByRole('button', { name: 'End sessions of Otto Leaver' }).click();
    const dialog = owner.page.getByRole('dialog', { name: 'End the sessions of Otto Leaver?' });
    const box = dialog.getByRole('checkbox', { name: /Also revoke the 2 admin tokens they made/ });
    assert.equal(await box.isChecked(), false);
    await box.check();
    await dialog.getByRole('button', { name: 'End sessions and revoke 2 admin tokens' }).waitFor();
    await inspectPage(owner.page, 'people-end-sessions-dialog');
    await box.uncheck();
    await dialog.getByRole('button', { name: 'End sessions', exact: true }).click();
    await owner.page.getByText('Ended 1 session of Otto Leaver.').waitFor();
    assert.equal((await h.server.admin(deploy, '/keys')).status, 200, 'his token outlives his sessions');

    // With no session left, the row offers to revoke the tokens alone.
    await owner.page.getByRole('button', { name: 'Revoke tokens of Otto Leaver' }).click();
    const revoking = owner.page.getByRole('dialog', { name: 'Revoke the tokens Otto Leaver made?' });
    await revoking.getByText(/no live session, but the 2 admin tokens they made still work/).waitFor();
    await inspectPage(owner.page, 'people-revoke-tokens-dialog');
    await revoking.getByRole('button', { name: 'Revoke 2 admin tokens' }).click();
    await owner.page
      .getByText('Revoked 2 admin tokens Otto Leaver made: otto deploy, otto backup.')
      .waitFor();
    assert.equal((await h.server.admin(deploy, '/keys')).status, 401, 'refused at once');
    assert.equal((await h.server.admin(backupToken, '/keys')).status, 401);
    await row.getByText('None', { exact: true }).first().waitFor();
    assert.equal(await row.getByRole('button').count(), 0, 'nothing left to end');
    await inspectPage(owner.page, 'people-offboarded');
    assert.deepEqual([...otto.errors, ...owner.errors], []);
    await otto.context.close();
    await owner.context.close();
  });
});

describe('token sign-in turned off', () => {
  let h: OidcHarness;

  before(async () => {
    h = await startOidcHarness({}, { CONSOLE_TOKEN_SIGNIN: 'off' });
  });
  after(() => h?.close());

  test('the console offers no token form and refuses a token sign-in, while tokens still work on the API', async () => {
    const { token } = await h.server.createAdminToken('cli');
    const context = await h.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${h.server.url}/console`);
    await page.getByRole('link', { name: 'Sign in with Test IdP' }).waitFor();
    assert.equal(await page.getByLabel('Admin token').count(), 0);
    await page.getByText(/Signing in with an admin token is turned off/).waitFor();
    await assertAccessible(page, 'sign-in without the token form');
    await context.close();

    const refused = await h.server.admin(token, '/sessions', { method: 'POST' });
    assert.equal(refused.status, 403, refused.text);
    assert.equal((refused.body as { code: string }).code, 'token_signin_off');
    assert.equal(refused.headers.get('set-cookie'), null);
    assert.equal((await h.server.admin(token, '/keys')).status, 200);
  });

  test('a stranger may start only so many sign-ins a minute: each keeps a row until it ends', async () => {
    const start = () => fetch(`${h.server.url}/console/oidc/start`, { redirect: 'manual' });
    const answers: number[] = [];
    for (let sent = 0; sent < 61; sent += 1) answers.push((await start()).status);
    // The console's own anonymous calls (a session check) share the address's budget of 60 a minute.
    const refusedFrom = answers.indexOf(429);
    assert.ok(refusedFrom >= 50, answers.join(' '));
    assert.deepEqual(new Set(answers.slice(0, refusedFrom)), new Set([303]));
    assert.deepEqual(new Set(answers.slice(refusedFrom)), new Set([429]));
  });
});

describe('the callback URL behind a TLS front (docs/people-and-roles.md)', () => {
  let idp: TestIdentityProvider;
  let direct: TestServer;
  let trusting: TestServer;
  /** The front's address as the service sees it: another machine. */
  const FRONT = '192.0.2.10';
  const forwarded = {
    host: 'petstore.example.com',
    'x-forwarded-proto': 'https',
    'x-forwarded-for': '203.0.113.7',
  };

  before(async () => {
    idp = await startIdentityProvider();
    direct = await startTestServer(oidcEnv(idp));
    trusting = await startTestServer(oidcEnv(idp, { TRUST_PROXY: FRONT }));
    idp.register(['https://petstore.example.com']);
  });
  after(async () => {
    await direct?.close();
    await trusting?.close();
    await idp?.close();
  });

  /** `/console/oidc/start` as it arrives from `remoteAddress`: the answer, and the callback it sends. */
  async function start(server: TestServer, remoteAddress: string, headers: Record<string, string>) {
    const answer = await server.server.app.inject({
      method: 'GET',
      url: '/console/oidc/start',
      remoteAddress,
      headers,
    });
    const location = answer.headers.location;
    const callback =
      typeof location === 'string' ? new URL(location).searchParams.get('redirect_uri') : undefined;
    return { status: answer.statusCode, body: answer.body, callback };
  }

  test('a front on this machine is believed from loopback: the callback is https, without TRUST_PROXY', async () => {
    const { status, callback } = await start(direct, '127.0.0.1', forwarded);
    assert.equal(status, 303);
    assert.equal(callback, 'https://petstore.example.com/console/oidc/callback');
  });

  test('a front on another machine is believed only when TRUST_PROXY names it', async () => {
    const stranger = await start(direct, FRONT, forwarded);
    assert.equal(stranger.status, 403, 'plain HTTP from another machine, as far as the service knows');
    assert.match(stranger.body, /Sign in over HTTPS/);
    assert.equal(stranger.callback, undefined);

    // Its X-Forwarded-Host too, when it sends one.
    const named = await start(trusting, FRONT, {
      ...forwarded,
      host: '10.0.0.2:8080',
      'x-forwarded-host': 'petstore.example.com',
    });
    assert.equal(named.status, 303);
    assert.equal(named.callback, 'https://petstore.example.com/console/oidc/callback');
  });

  test('a front on this machine that adds no headers (TLS ended below HTTP) leaves an http callback', async () => {
    const { status, callback } = await start(direct, '127.0.0.1', { host: 'petstore.example.com' });
    assert.equal(status, 303);
    assert.equal(callback, 'http://petstore.example.com/console/oidc/callback');
  });
});
