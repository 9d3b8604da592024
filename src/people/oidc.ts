import * as client from 'openid-client';
import type { Logger } from '../log/index.js';
import type { RoleMapping } from './group-roles.js';

/** The settings of sign-in with OpenID Connect (`OIDC_*`). */
export interface OidcOptions {
  /** The provider's issuer URL: its discovery document is `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  /** Undefined for a public client, which PKCE alone protects. */
  clientSecret: string | undefined;
  /** The claim of the ID token (or of userinfo) that lists a person's groups. */
  groupsClaim: string;
  roles: RoleMapping;
  /** What the sign-in page calls the provider: "Sign in with <name>". */
  providerName: string;
  /** A testing aid: how often a person's session is checked with the provider (`RECHECK_MS`). */
  recheckMs?: number;
}

/** The claims a sign-in or a refresh read, from the ID token or, when a refresh brings none, userinfo. */
export type Claims = Readonly<Record<string, unknown>> & { sub: string };

/** What a provider said at a refresh: the person's claims now, and the refresh token to use next time. */
export interface Refreshed {
  claims: Claims;
  refreshToken: string;
}

/** What a browser's return from the provider must match, made when it set out. */
export interface SignInChecks {
  state: string;
  nonce: string;
  verifier: string;
}

/**
 * The service as an OpenID Connect relying party, through `openid-client` (certified): the authorization code
 * flow with PKCE (S256), state and nonce, the ID token's signature, issuer, audience, expiry and nonce checked
 * by the library. The provider's discovery document is read at the first sign-in, and again after a failure.
 */
export interface RelyingParty {
  readonly options: OidcOptions;
  /** Where to send a browser to sign in, and the checks its return must pass. */
  begin(redirectUri: string): Promise<{ url: URL; checks: SignInChecks }>;
  /** Trades the code of a return (its whole URL) for the person's claims, after every check. */
  finish(
    currentUrl: URL,
    checks: SignInChecks,
  ): Promise<{ claims: Claims; refreshToken: string | undefined }>;
  /**
   * Asks the provider about a signed-in person again with their refresh token. `refused`: the provider no
   * longer lets them in (the token revoked, the person removed or disabled); undefined: it could not be asked.
   */
  refresh(refreshToken: string, subject: string): Promise<Refreshed | 'refused' | undefined>;
}

/**
 * What a log line may say of a failure to talk to the provider: its kind and words, and the provider's error
 * code. Never the error's `cause`, where the library puts the response it refused, which may hold tokens.
 */
export function providerFailure(error: unknown): Record<string, unknown> {
  if (error instanceof client.ResponseBodyError)
    return {
      type: error.name,
      error: error.error,
      description: error.error_description,
      status: error.status,
    };
  if (error instanceof Error)
    return { type: error.name, message: error.message, code: (error as { code?: unknown }).code };
  return { type: typeof error };
}

export function createRelyingParty(options: OidcOptions, logger: Logger): RelyingParty {
  const issuer = new URL(options.issuer);
  let discovered: Promise<client.Configuration> | undefined;
  const configuration = () => {
    discovered ??= client
      .discovery(
        issuer,
        options.clientId,
        options.clientSecret,
        options.clientSecret === undefined ? client.None() : undefined,
        // Plain HTTP is for a provider on this machine only (tests, a local Keycloak): the config refuses others.
        issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : {},
      )
      .catch((error: unknown) => {
        discovered = undefined;
        throw error;
      });
    return discovered;
  };
  /** The scopes to ask for: those the provider supports of the ones that bring groups and refresh tokens. */
  const scopesOf = (config: client.Configuration) => {
    const supported = config.serverMetadata().scopes_supported;
    const wanted = ['email', 'profile', options.groupsClaim, 'offline_access'];
    return ['openid', ...wanted.filter((scope) => supported?.includes(scope) === true)].join(' ');
  };

  return {
    options,
    async begin(redirectUri) {
      const config = await configuration();
      const checks = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        verifier: client.randomPKCECodeVerifier(),
      };
      const parameters: Record<string, string> = {
        redirect_uri: redirectUri,
        scope: scopesOf(config),
        state: checks.state,
        nonce: checks.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(checks.verifier),
        code_challenge_method: 'S256',
      };
      // A refresh token is given for offline_access only after the person consents to it.
      if (parameters.scope?.includes('offline_access')) parameters.prompt = 'consent';
      return { url: client.buildAuthorizationUrl(config, parameters), checks };
    },
    async finish(currentUrl, checks) {
      const config = await configuration();
      const tokens = await client.authorizationCodeGrant(config, currentUrl, {
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        pkceCodeVerifier: checks.verifier,
        idTokenExpected: true,
      });
      const claims = tokens.claims() as Claims | undefined;
      if (claims === undefined) throw new Error('The provider sent no ID token');
      const merged = await withUserInfo(config, claims, tokens.access_token);
      return { claims: merged, refreshToken: tokens.refresh_token };
    },
    async refresh(refreshToken, subject) {
      try {
        const config = await configuration();
        const tokens = await client.refreshTokenGrant(config, refreshToken);
        const fromToken = tokens.claims() as Claims | undefined;
        if (fromToken !== undefined && fromToken.sub !== subject) return 'refused';
        const claims = await withUserInfo(config, fromToken ?? { sub: subject }, tokens.access_token);
        return { claims, refreshToken: tokens.refresh_token ?? refreshToken };
      } catch (error) {
        if (error instanceof client.ResponseBodyError && error.error === 'invalid_grant') return 'refused';
        logger.warn(
          { failure: providerFailure(error) },
          'the identity provider could not be asked about a signed-in person',
        );
        return undefined;
      }
    },
  };

  /** The claims, with the groups from userinfo when the ID token has none (many providers keep them there). */
  async function withUserInfo(config: client.Configuration, claims: Claims, accessToken: string) {
    if (claims[options.groupsClaim] !== undefined || config.serverMetadata().userinfo_endpoint === undefined)
      return claims;
    const info = await client.fetchUserInfo(config, accessToken, claims.sub);
    return { ...info, ...claims, [options.groupsClaim]: info[options.groupsClaim] } as Claims;
  }
}
