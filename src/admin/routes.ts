import type { AuditFilter, AuditRepository } from '../audit/index.js';
import { type Clock, parseTimestamp } from '../clock/index.js';
import {
  type AdminOperationId,
  type ApiKeyChange,
  AUDIT_PAGE,
  type AuditQuery,
  type KeyUsageQuery,
  type NewApiKey,
  type NewDomain,
  type RequestQuery,
  type Role,
  type Rotation,
  roleAllows,
  type SessionStart,
  USAGE_SPAN,
  type UsageQuery,
} from '../contract/index.js';
import { DomainConflictError, DomainInputError, type DomainManager } from '../domains/index.js';
import { ApiError } from '../errors/index.js';
import { type OperationHandler, queryTime } from '../http/index.js';
import {
  type ApiKeyRecord,
  type IssuedKey,
  KeyExpiredError,
  KeyInputError,
  type KeyManager,
  KeyRevokedError,
  KeyRotatedError,
  keyView,
} from '../keys/index.js';
import type { PeopleRepository } from '../people/index.js';
import { type Decision, limitsFor, type RateLimiter, type RateLimitPolicy } from '../ratelimit/index.js';
import {
  filterOf,
  operatorView,
  type RequestLog,
  type RequestRecord,
  requestLogOff,
  sendExport,
  sendPage,
} from '../request-log/index.js';
import { type UsageRecorder, type UsageRepository, usageSeries } from '../usage/index.js';
import type { WebhookManager } from '../webhooks/index.js';
import { type ActorInfo, type Actors, auditView, sendAuditExport } from './audit-views.js';
import type { AdminAuthenticator } from './authenticator.js';
import { clearSessionCookie, sessionTransportAllowed, setSessionCookie } from './cookie.js';
import { INVALID_CHALLENGE, MISSING_CHALLENGE } from './hook.js';
import { peopleHandlers } from './people-routes.js';
import { insufficientRole, roleOf } from './roles.js';
import type { Sessions } from './sessions.js';
import { tokenHandlers } from './token-routes.js';
import type { AdminTokenManager, AdminTokenRecord, AdminTokenRepository } from './tokens.js';
import { webhookHandlers } from './webhook-routes.js';

/** The requests a window's decision says were spent of its day. */
async function dayUsed(decision: Decision | Promise<Decision>): Promise<number> {
  const { day } = await decision;
  return day.limit - day.remaining;
}

/** The key manager's refusals as the admin API answers them. */
async function checked<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof KeyInputError) throw new ApiError('validation_failed', error.message);
    if (error instanceof KeyRevokedError) throw new ApiError('key_revoked', error.message);
    if (error instanceof KeyRotatedError) throw new ApiError('key_rotated', error.message);
    if (error instanceof KeyExpiredError) throw new ApiError('key_expired', error.message);
    if (error instanceof DomainInputError) throw new ApiError('validation_failed', error.message);
    if (error instanceof DomainConflictError) throw new ApiError('domain_conflict', error.message);
    throw error;
  }
}

const signInWithToken = () =>
  new ApiError(
    'missing_api_key',
    'Sign in with an admin token: send Authorization: Bearer <ADMIN_TOKEN>, or {"token": "<ADMIN_TOKEN>"}',
    MISSING_CHALLENGE,
  );
const noSession = () =>
  new ApiError('not_found', 'This request has no console session: it sent an admin token instead');
const missing = (id: string) => new ApiError('not_found', `No API key has the id ${id}`);
const noDomain = (name: string) =>
  new ApiError('not_found', `${name.slice(0, 100)} is not a custom domain of this service`);

/** A key's limits from the flat fields of a body: both or neither. */
function limitsOf(body: { perMinute?: number; perDay?: number }, current?: ApiKeyRecord['limits']) {
  if (body.perMinute === undefined && body.perDay === undefined) return undefined;
  const perMinute = body.perMinute ?? current?.perMinute;
  const perDay = body.perDay ?? current?.perDay;
  if (perMinute === undefined || perDay === undefined) {
    throw new ApiError('validation_failed', 'perMinute and perDay go together');
  }
  return { perMinute, perDay };
}

const isoOf = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** The request log's rows as a role sees them: a viewer without the client's address. */
const requestView = (role: Role) =>
  roleAllows(role, 'support')
    ? operatorView
    : (record: RequestRecord) => ({ ...operatorView(record), client: null });

/**
 * The handlers of the admin API: thin callers of the same key and domain managers as the CLI, acting as
 * their token (sent in `Authorization`, or the token of a console session).
 */
export function createAdminHandlers(deps: {
  keys: KeyManager;
  domains: DomainManager;
  audit: AuditRepository;
  sessions: Sessions;
  usage: UsageRepository;
  recorder: UsageRecorder;
  rateLimit: RateLimitPolicy;
  /** Today's day window of each key, as the key's own page shows it. */
  limiter: Pick<RateLimiter, 'peekKey'>;
  /** To check the token a sign-in sends in its body. */
  tokens: AdminAuthenticator;
  /** Every admin token, revoked ones too: the audit names its actors; the People page lists people's. */
  adminTokens: Pick<AdminTokenRepository, 'list' | 'madeByPeople'>;
  /** Everyone who signed in with OpenID Connect: the audit names them too. */
  people: PeopleRepository;
  /** Whether an admin token may start a console session (`CONSOLE_TOKEN_SIGNIN`). */
  tokenSignIn: boolean;
  /** Makes and revokes admin tokens, as the CLI does. */
  tokenManager: AdminTokenManager;
  /** The request log; undefined when it is off. */
  requestLog: RequestLog | undefined;
  webhooks: WebhookManager;
  clock: Clock;
}): Record<AdminOperationId, OperationHandler> {
  const {
    keys,
    domains,
    audit,
    sessions,
    usage,
    recorder,
    rateLimit,
    limiter,
    clock,
    tokens,
    adminTokens,
    tokenManager,
    requestLog,
    webhooks,
    people,
    tokenSignIn,
  } = deps;
  /** The token a sign-in sent in its body, as the admin hook would know it from `Authorization`. */
  async function tokenOfBody(body: SessionStart | undefined): Promise<AdminTokenRecord> {
    if (body?.token === undefined) throw signInWithToken();
    let found = tokens.authenticate(body.token);
    // One made a moment ago, by the CLI or on another instance, as the admin hook rechecks.
    if (found === undefined) {
      await tokens.recheck(body.token);
      found = tokens.authenticate(body.token);
    }
    if (found === undefined)
      throw new ApiError('invalid_api_key', 'The admin token is not valid', INVALID_CHALLENGE);
    return found;
  }
  /**
   * Actors are ids, for filters and scripts; people read names. A token is revoked and a person kept, never
   * deleted, so every token and person actor has one.
   */
  async function actorsOf(): Promise<Actors> {
    const [tokenRecords, everyone] = await Promise.all([adminTokens.list(), people.all()]);
    return new Map<string, ActorInfo>([
      ...tokenRecords.map((token) => [token.id, { name: token.name, subject: null, email: null }] as const),
      ...everyone.map(
        (person) =>
          [
            person.id,
            { name: person.name ?? person.email, subject: person.subject, email: person.email },
          ] as const,
      ),
    ]);
  }
  const nameOf = (params: unknown) => (params as { name: string }).name;
  const actor = (request: { admin: { id: string } | null }) => request.admin?.id ?? 'unknown';
  const view = (record: ApiKeyRecord) => keyView(record, clock.now(), limitsFor(rateLimit, record));
  const issued = ({ record, key }: IssuedKey) => ({ ...view(record), key });
  const found = (record: ApiKeyRecord | undefined, id: string) => {
    if (record === undefined) throw missing(id);
    return view(record);
  };
  const idOf = (params: unknown) => (params as { id: string }).id;

  return {
    ...webhookHandlers({ webhooks, actor }),
    ...tokenHandlers({ manager: tokenManager, authenticator: tokens, people, actor }),
    ...peopleHandlers({
      people,
      sessions,
      adminTokens,
      authenticator: tokens,
      actor,
      now: clock.now,
    }),
    async createApiKey(request, reply) {
      const body = request.body as NewApiKey;
      const limits = limitsOf(body);
      const created = await checked(() =>
        keys.create(
          {
            plan: body.plan,
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(limits !== undefined ? { limits } : {}),
            ...(body.expiresAt !== undefined ? { expiresAt: body.expiresAt } : {}),
            ...(body.scopes !== undefined ? { scopes: body.scopes } : {}),
          },
          actor(request),
        ),
      );
      return reply.code(201).send(issued(created));
    },
    async listApiKeys(_request, reply) {
      return reply.send((await keys.list()).map(view));
    },
    async getApiKey(request, reply) {
      const id = idOf(request.params);
      return reply.send(found(await keys.get(id), id));
    },
    async updateApiKey(request, reply) {
      const id = idOf(request.params);
      const body = request.body as ApiKeyChange;
      const current = await keys.get(id);
      if (current === undefined) throw missing(id);
      const limits = limitsOf(body, current.limits);
      const updated = await checked(() =>
        keys.update(
          id,
          {
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(body.plan !== undefined ? { plan: body.plan } : {}),
            ...(limits !== undefined ? { limits } : {}),
            ...(body.scopes !== undefined ? { scopes: body.scopes } : {}),
            ...(body.expiresAt !== undefined ? { expiresAt: body.expiresAt } : {}),
          },
          actor(request),
        ),
      );
      return reply.send(found(updated, id));
    },
    async rotateApiKey(request, reply) {
      const id = idOf(request.params);
      const graceSeconds = (request.body as Rotation | null)?.gracePeriodSeconds ?? 0;
      const rotated = await checked(() => keys.rotate(id, graceSeconds * 1000, actor(request)));
      if (rotated === undefined) throw missing(id);
      return reply.code(201).send(issued(rotated));
    },
    async revokeApiKey(request, reply) {
      const id = idOf(request.params);
      const revoked = await keys.revoke(id, actor(request));
      if (revoked === undefined) throw missing(id);
      return reply.send({
        ...view(revoked.record),
        successorsRevoked: revoked.successors.map((successor) => successor.id),
      });
    },
    async unbanApiKey(request, reply) {
      const id = idOf(request.params);
      return reply.send(found(await keys.unban(id, actor(request)), id));
    },
    async listAuditEvents(request, reply) {
      const query = request.query as AuditQuery;
      const from = isoOf(queryTime(query.from, 'from'));
      const to = isoOf(queryTime(query.to, 'to'));
      const filter: AuditFilter = {
        after: query.after ?? 0,
        limit: query.limit ?? AUDIT_PAGE.default,
        ...(query.before !== undefined ? { before: query.before } : {}),
        ...(query.target !== undefined ? { target: query.target } : {}),
        ...(query.actor !== undefined ? { actor: query.actor } : {}),
        ...(query.actorKind !== undefined ? { actorKind: query.actorKind } : {}),
        ...(from !== undefined ? { from } : {}),
        ...(to !== undefined ? { to } : {}),
        ...(query.order !== undefined ? { order: query.order } : {}),
      };
      const actors = await actorsOf();
      if (query.format !== undefined) {
        return sendAuditExport(reply, audit, filter, { format: query.format, now: clock.now(), actors });
      }
      return reply.send((await audit.list(filter)).map((event) => auditView(event, actors)));
    },
    async listRequests(request, reply) {
      if (requestLog === undefined) throw requestLogOff();
      const query = request.query as RequestQuery;
      const role = roleOf(request);
      // A viewer does not see client addresses, nor finds requests by one.
      if (query.client !== undefined && !roleAllows(role, 'support'))
        throw insufficientRole('Filtering the request log by client', 'support', request.admin);
      const view = requestView(role);
      const filter = filterOf(query);
      if (query.format === 'ndjson' || query.format === 'csv') {
        return sendExport(reply, requestLog, filter, { format: query.format, now: clock.now(), view });
      }
      return sendPage(request, reply, requestLog, filter, query, view);
    },
    async getRequest(request, reply) {
      if (requestLog === undefined) throw requestLogOff();
      const { requestId } = request.params as { requestId: string };
      const [found] = await requestLog.list({ requestId, limit: 1 });
      if (found === undefined) {
        throw new ApiError('not_found', `No request of the kept days has the id ${requestId}`);
      }
      return reply.send(requestView(roleOf(request))(found));
    },
    async startSession(request, reply) {
      if (request.adminSession !== null) throw signInWithToken();
      if (!tokenSignIn) {
        throw new ApiError(
          'token_signin_off',
          'Signing in to the console with an admin token is turned off (CONSOLE_TOKEN_SIGNIN=off): sign in with your identity provider',
        );
      }
      // Without a session, the request's principal is the token it sent in `Authorization`.
      const sent = request.admin === null ? undefined : tokens.byId(request.admin.id);
      const token = sent ?? (await tokenOfBody(request.body as SessionStart | undefined));
      if (!sessionTransportAllowed(request)) {
        throw new ApiError(
          'https_required',
          'A console session starts only over HTTPS, or over plain HTTP from this machine',
        );
      }
      const { credentials, view: session } = await sessions.start(token);
      return reply
        .code(201)
        .header('set-cookie', setSessionCookie(request, credentials.cookie))
        .send({ ...session, secret: credentials.secret });
    },
    async getSession(request, reply) {
      if (request.adminSession === null) throw noSession();
      return reply.send(request.adminSession.view);
    },
    async endSession(request, reply) {
      const session = request.adminSession;
      if (session === null || request.admin === null) throw noSession();
      const ended = await sessions.end(session.digest, request.admin);
      return reply.header('set-cookie', clearSessionCookie(request)).send({ ended });
    },
    async getUsage(request, reply) {
      const query = request.query as UsageQuery;
      if (query.key !== undefined && (await keys.get(query.key)) === undefined) throw missing(query.key);
      const granularity = query.granularity ?? 'hour';
      const span = granularity === 'hour' ? USAGE_SPAN.hours : USAGE_SPAN.days;
      const to = queryTime(query.to, 'to') ?? clock.now();
      const from = queryTime(query.from, 'from');
      // This instance's counts are stored first; the others' reach storage within their flush interval.
      await recorder.flush();
      const series = await usageSeries(usage, { key: query.key, granularity, from, to, span });
      if (typeof series === 'string') throw new ApiError('validation_failed', series);
      return reply.send(series);
    },
    async listKeyUsage(request, reply) {
      const query = request.query as KeyUsageQuery;
      const day = query.day ?? new Date(clock.now()).toISOString().slice(0, 10);
      if (parseTimestamp(`${day}T00:00:00Z`) === undefined) {
        throw new ApiError('validation_failed', `day ${day} does not exist`);
      }
      await recorder.flush();
      const [used, records] = await Promise.all([usage.keysOn(day, query.limit ?? 10), keys.list()]);
      const byId = new Map(records.map((record) => [record.id, record]));
      const today = day === new Date(clock.now()).toISOString().slice(0, 10);
      const rows = await Promise.all(
        used.map(async (counts) => {
          const record = byId.get(counts.keyId);
          if (record === undefined) return [];
          const limits = limitsFor(rateLimit, record);
          // Today's use is the day window the limiter enforces, which the key's own page shows too (its
          // budget's, shared with the keys a rotation links); an earlier day's, what storage counted.
          const spent = today
            ? await dayUsed(limiter.peekKey(record))
            : counts.success + counts.clientErrors + counts.serverErrors;
          return [
            {
              ...counts,
              name: record.name,
              plan: record.plan,
              used: spent,
              perMinute: limits.perMinute,
              perDay: limits.perDay,
              dayShare: limits.perDay > 0 ? spent / limits.perDay : 0,
            },
          ];
        }),
      );
      return reply.send(rows.flat());
    },
    async getDomainSettings(_request, reply) {
      return reply.send(domains.settings());
    },
    async listDomains(_request, reply) {
      return reply.send((await domains.list()).map((record) => domains.view(record)));
    },
    async addDomain(request, reply) {
      const body = request.body as NewDomain;
      const record = await checked(() =>
        domains.add(
          body.name,
          {
            ...(body.primary !== undefined ? { primary: body.primary } : {}),
            ...(body.redirectTo !== undefined ? { redirectTo: body.redirectTo } : {}),
            ...(body.redirectStatus !== undefined ? { redirectStatus: body.redirectStatus } : {}),
          },
          actor(request),
        ),
      );
      return reply.code(201).send(domains.view(record));
    },
    async getDomain(request, reply) {
      const name = nameOf(request.params);
      const record = await domains.get(name);
      if (record === undefined) throw noDomain(name);
      return reply.send(domains.view(record));
    },
    async verifyDomain(request, reply) {
      const name = nameOf(request.params);
      const record = await domains.verify(name, actor(request));
      if (record === undefined) throw noDomain(name);
      return reply.send(domains.view(record));
    },
    async removeDomain(request, reply) {
      const name = nameOf(request.params);
      const removal = await checked(() => domains.remove(name, actor(request)));
      if (removal === undefined) throw noDomain(name);
      return reply.send({ name: removal.removed.name, dnsStillPointsHere: removal.stillPointsHere });
    },
  };
}
