import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from './browser.js';
import { startClosing } from './closing.js';
import { startTestServer, type TestServer } from './server.js';

/** A person the test identity provider knows: the login of its sign-in form is their key. */
export interface TestAccount {
  email: string;
  name: string;
  groups: string[];
}

export interface TestIdentityProvider {
  /** The issuer: `OIDC_ISSUER`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The people it signs in, by login; change one's groups to see a session follow. */
  accounts: Map<string, TestAccount>;
  /** Lets the console at these origins be sent back to (`<origin>/console/oidc/callback`). */
  register(origins: readonly string[]): void;
  close(): Promise<void>;
}

/**
 * A real OpenID Connect provider (`oidc-provider`, certified) on a free port of this machine: the
 * authorization code flow with PKCE required, refresh tokens for `offline_access`, a `groups` claim, and its
 * development sign-in and consent pages, which a browser fills in (any password). Its port is known before
 * the service starts, and the console's callback registered once the service listens.
 */
export async function startIdentityProvider(): Promise<TestIdentityProvider> {
  let handler: http.RequestListener = (_request, response) => {
    response.writeHead(503).end('not ready');
  };
  const server = http.createServer((request, response) => handler(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, TestAccount>();
  const clientId = 'petstore-console';
  const clientSecret = 'a-test-client-secret-of-thirty-two-chars';
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    register(origins) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: origins.map((origin) => `${origin}/console/oidc/callback`),
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
          },
        ],
        pkce: { required: () => true },
        scopes: ['openid', 'offline_access', 'email', 'profile', 'groups'],
        claims: { email: ['email'], profile: ['name'], groups: ['groups'] },
        cookies: { keys: ['a test cookie key, never used elsewhere'] },
        async findAccount(_context, id) {
          return {
            accountId: id,
            // Read at each call: a changed account is what the next refresh sees.
            async claims() {
              const account = accounts.get(id);
              return account === undefined ? { sub: id } : { sub: id, ...account };
            },
          };
        },
      });
      handler = provider.callback();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The groups of the test provider that give roles. */
const ROLES = 'petstore-owners=owner,petstore-viewers=viewer,petstore-support=support';

/** The console's environment for signing in with the test provider. */
export const oidcEnv = (idp: TestIdentityProvider, extra: Record<string, string> = {}) => ({
  OIDC_ISSUER: idp.issuer,
  OIDC_CLIENT_ID: idp.clientId,
  OIDC_CLIENT_SECRET: idp.clientSecret,
  OIDC_ROLES: ROLES,
  OIDC_PROVIDER_NAME: 'Test IdP',
  ...extra,
});

/** The provider's return to the console, which a test stops to replay or alter. */
export const isCallback = (url: URL) => url.pathname === '/console/oidc/callback';

/** Goes through the provider's own sign-in and consent pages as `login`, from the console's sign-in page. */
export async function throughProvider(page: Page, login: string): Promise<void> {
  await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.locator('button[type="submit"]').click();
  // The consent page asks once for each grant (offline_access needs it every time).
  await page.locator('button[type="submit"]').click();
}

/** The session the console's page holds, as a script of other software could present it. */
export async function sessionOf(context: BrowserContext, page: Page): Promise<Record<string, string>> {
  const cookies = await context.cookies();
  const cookie = cookies.find((each) => each.name === 'petstore_session');
  assert.ok(cookie, 'the session cookie');
  const secret = (await page.evaluate('sessionStorage.getItem("petstore.session")')) as string | null;
  assert.ok(secret?.startsWith('pssh_'), 'the second secret is in the tab');
  return { cookie: `petstore_session=${cookie.value}`, 'x-petstore-session': secret as string };
}

/**
 * Signs `login` in through the provider at the console of `base` in a new browser context, waits until the
 * console says `Signed in as ${shownAs}`, and answers the session as a script would present it. The context is
 * closed: the session lives on in the service.
 */
export async function signedInSession(
  browser: Browser,
  base: string,
  login: string,
  shownAs: string,
): Promise<Record<string, string>> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${base}/console`);
    await throughProvider(page, login);
    await page.getByText(`Signed in as ${shownAs}`).waitFor();
    return await sessionOf(context, page);
  } finally {
    await context.close();
  }
}

/** The test provider, a test server whose console signs people in with it, and Chromium to sign in with. */
export interface OidcHarness {
  idp: TestIdentityProvider;
  server: TestServer;
  browser: Browser;
  /** Closes the browser, the server and the provider. */
  close(): Promise<void>;
}

/**
 * Starts the provider knowing `accounts` (by login), a test server of `oidcEnv(idp, env)` and `options` whose
 * console it registers, and Chromium; what started is closed again if the rest fails.
 */
export function startOidcHarness(
  accounts: Record<string, TestAccount>,
  env: Record<string, string> = {},
  options: Parameters<typeof startTestServer>[1] = {},
): Promise<OidcHarness> {
  return startClosing(async (keep) => {
    const idp = keep(await startIdentityProvider());
    for (const [login, account] of Object.entries(accounts)) idp.accounts.set(login, account);
    const server = keep(await startTestServer(oidcEnv(idp, env), options));
    idp.register([new URL(server.url).origin]);
    return { idp, server, browser: keep(await launchBrowser()) };
  });
}
