import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

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
