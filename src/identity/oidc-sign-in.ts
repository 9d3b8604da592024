import { randomBytes } from 'node:crypto';
import { parse, serialize } from 'cookie';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditRepository } from '../audit/index.js';
import type { Clock } from '../clock/index.js';
import { CONSOLE_PATH, type ConsolePages, type MessagePage } from '../console/index.js';
import { personName } from '../contract/index.js';
import { overHttps } from '../http/index.js';
import { keyDigest, randomBase62 } from '../keys/index.js';
import type { Logger } from '../log/index.js';
import {
  groupsOf,
  type OidcLoginRepository,
  type PeopleRepository,
  type PersonRecord,
  providerFailure,
  type RelyingParty,
  roleOfGroups,
} from '../people/index.js';
import { sessionTransportAllowed, setSessionCookie } from './session-cookie.js';
import type { Sessions } from './sessions.js';

/** Where a sign-in sets out, and where the provider sends the browser back (register this one with it). */
const OIDC_START_PATH = `${CONSOLE_PATH}/oidc/start`;
const OIDC_CALLBACK_PATH = `${CONSOLE_PATH}/oidc/callback`;

/** How long a sign-in may take at the provider: its state is refused after. */
const SIGN_IN_MS = 10 * 60_000;

/**
 * The cookie that binds a sign-in to the browser that started it: without it, a return from the provider is
 * refused, so nobody can sign someone else in as themselves with a link (login CSRF). `SameSite=Lax`, since
 * the return is a top-level navigation from the provider's site; under `__Host-` over HTTPS.
 */
const BINDING_SECURE = '__Host-petstore_oidc';
const BINDING_PLAIN = 'petstore_oidc';

function bindingCookie(request: FastifyRequest, value: string | undefined): string {
  const secure = overHttps(request);
  return serialize(secure ? BINDING_SECURE : BINDING_PLAIN, value ?? '', {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure,
    ...(value === undefined ? { expires: new Date(0) } : { maxAge: SIGN_IN_MS / 1000 }),
  });
}

const bindingOf = (request: FastifyRequest) =>
  parse(request.headers.cookie ?? '')[overHttps(request) ? BINDING_SECURE : BINDING_PLAIN];

/** This service's origin as the browser reached it: the callback URL registered at the provider is under it. */
const originOf = (request: FastifyRequest) => `${overHttps(request) ? 'https' : 'http'}://${request.host}`;

/** The claims that name a person, if the provider sent them as strings. */
const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value.slice(0, 320) : null);

/**
 * Sign-in to the console with an OpenID Connect provider: `/console/oidc/start` sends the browser to the
 * provider, `/console/oidc/callback` takes it back, checks the answer (state, PKCE, nonce and the ID token,
 * through `openid-client`), maps the person's groups to a role and starts their session; a person whose
 * groups give no role is refused with a page that says so, and the refusal is audited.
 */
export function registerOidcSignIn(
  app: FastifyInstance,
  deps: {
    relyingParty: RelyingParty;
    people: PeopleRepository;
    oidcLogins: OidcLoginRepository;
    sessions: Sessions;
    audit: AuditRepository;
    pages: ConsolePages;
    /**
     * Counts each request of a scope by its address and refuses it past the limit: a sign-in writes a row
     * before anyone is known, so strangers may start only so many.
     */
    limitByAddress: (scope: FastifyInstance) => void;
    clock: Clock;
    logger: Logger;
  },
): void {
  void app.register(async (scope) => {
    deps.limitByAddress(scope);
    routes(scope, deps);
  });
}

function routes(app: FastifyInstance, deps: Parameters<typeof registerOidcSignIn>[1]): void {
  const { relyingParty, people, oidcLogins, sessions, audit, pages, clock, logger } = deps;
  const { options } = relyingParty;
  const iso = (ms: number) => new Date(ms).toISOString();

  app.get(OIDC_START_PATH, async (request, reply) => {
    if (!sessionTransportAllowed(request))
      return pages.sendMessage(request, reply.code(403), {
        title: 'Sign in over HTTPS',
        paragraphs: ['A console session starts only over HTTPS, or over plain HTTP from this machine.'],
      });
    let begun: Awaited<ReturnType<RelyingParty['begin']>>;
    try {
      begun = await relyingParty.begin(`${originOf(request)}${OIDC_CALLBACK_PATH}`);
    } catch (error) {
      logger.warn(
        { failure: providerFailure(error), issuer: options.issuer },
        'the identity provider could not be reached',
      );
      return pages.sendMessage(request, reply.code(502), {
        title: `${options.providerName} could not be reached`,
        paragraphs: [
          `The console could not read the sign-in settings of ${options.issuer}. Try again in a moment; if it lasts, an operator finds the reason in the service's log.`,
        ],
      });
    }
    const binding = randomBytes(32).toString('base64url');
    const now = clock.now();
    await oidcLogins.put(
      { ...begun.checks, binding: keyDigest(binding), createdAt: iso(now) },
      iso(now - SIGN_IN_MS),
    );
    return reply
      .header('set-cookie', bindingCookie(request, binding))
      .header('cache-control', 'no-store')
      .redirect(begun.url.href, 303);
  });

  // The provider's words, unvalidated: each is checked below as it is read.
  app.get<{ Querystring: Record<string, unknown> }>(OIDC_CALLBACK_PATH, async (request, reply) => {
    const { query } = request;
    const refuse = (status: number, message: MessagePage) =>
      pages.sendMessage(
        request,
        reply.code(status).header('set-cookie', bindingCookie(request, undefined)),
        message,
      );
    const state = text(query.state);
    const login = state === null ? undefined : await oidcLogins.take(state);
    const now = clock.now();
    // The provider's own refusal. Its words are shown only for a sign-in this browser started: a link made
    // by anyone else could put any words on our page.
    if (typeof query.error === 'string') {
      const binding = bindingOf(request);
      const started = login !== undefined && binding !== undefined && keyDigest(binding) === login.binding;
      const reason = started ? (text(query.error_description) ?? text(query.error)) : null;
      return refuse(403, {
        title: 'Sign-in refused',
        paragraphs: [
          `${options.providerName} did not sign you in${reason === null ? '' : `: ${reason}`}.`,
          'Sign in again, or ask the people who run it.',
        ],
      });
    }
    if (login === undefined || now - Date.parse(login.createdAt) > SIGN_IN_MS)
      return refuse(400, {
        title: 'This sign-in has ended',
        paragraphs: [
          'This sign-in link was used already or is too old (a sign-in must end within 10 minutes). Sign in again.',
        ],
      });
    const binding = bindingOf(request);
    if (binding === undefined || keyDigest(binding) !== login.binding)
      return refuse(400, {
        title: 'This sign-in was started elsewhere',
        paragraphs: [
          'The sign-in did not start in this browser, so it cannot end here. Sign in again from this browser.',
        ],
      });
    let signedIn: Awaited<ReturnType<RelyingParty['finish']>>;
    try {
      signedIn = await relyingParty.finish(new URL(request.url, originOf(request)), login);
    } catch (error) {
      logger.warn(
        { failure: providerFailure(error), issuer: options.issuer },
        'a sign-in with the identity provider failed its checks',
      );
      return refuse(400, {
        title: 'Sign-in failed',
        paragraphs: [
          `The answer of ${options.providerName} did not pass the console's checks, so nobody was signed in. Sign in again; if it lasts, an operator finds the reason in the service's log.`,
        ],
      });
    }
    const { claims, refreshToken } = signedIn;
    const groups = groupsOf(claims[options.groupsClaim]);
    const role = roleOfGroups(groups, options.roles);
    const who = { email: text(claims.email), name: text(claims.name) };
    if (role === undefined) {
      await audit.record({
        at: iso(now),
        actor: 'oidc',
        action: 'session.refused',
        target: claims.sub,
        details: { issuer: options.issuer, email: who.email, groups: groups.slice(0, 50) },
      });
      const shown = groups.length === 0 ? 'none' : groups.slice(0, 20).join(', ');
      return refuse(403, {
        title: 'No role for you here',
        paragraphs: [
          `${options.providerName} signed you in as ${who.email ?? who.name ?? claims.sub}, but none of your groups gives a role in this console, so you were not let in.`,
          `Your groups, as ${options.providerName} sent them in the "${options.groupsClaim}" claim: ${shown}.`,
          'Ask an owner of this console to add you to a group that gives a role.',
        ],
      });
    }
    const person: PersonRecord = await people.signIn(
      { issuer: options.issuer, subject: claims.sub, ...who, role },
      iso(now),
      `per_${randomBase62(12)}`,
    );
    const { credentials } = await sessions.startForPerson(person, refreshToken);
    // The console's script keeps the second secret from the URL's fragment (never sent to a server) and
    // clears it from the address bar and the history.
    return pages.sendMessage(
      request,
      reply.header('set-cookie', [
        setSessionCookie(request, credentials.cookie),
        bindingCookie(request, undefined),
      ]),
      {
        title: 'Signed in',
        paragraphs: [`Signed in as ${personName(person)}, with the ${role} role.`],
        redirect: `${CONSOLE_PATH}#session=${credentials.secret}`,
      },
    );
  });
}
