import type { AuditRepository } from '../audit/index.js';
import type { Clock } from '../clock/index.js';
import type {
  AdminOperationId,
  ApiKeyChange,
  AuditQuery,
  NewApiKey,
  NewDomain,
  Rotation,
} from '../contract/index.js';
import { DomainConflictError, DomainInputError, type DomainManager } from '../domains/index.js';
import { ApiError } from '../errors/index.js';
import type { OperationHandler } from '../http/index.js';
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

/**
 * The handlers of the admin API: thin callers of the same key and domain managers as the CLI, acting as
 * their token.
 */
export function createAdminHandlers(deps: {
  keys: KeyManager;
  domains: DomainManager;
  audit: AuditRepository;
  clock: Clock;
}): Record<AdminOperationId, OperationHandler> {
  const { keys, domains, audit, clock } = deps;
  const nameOf = (params: unknown) => (params as { name: string }).name;
  const actor = (request: { adminToken: { id: string } | null }) => request.adminToken?.id ?? 'unknown';
  const view = (record: ApiKeyRecord) => keyView(record, clock.now());
  const issued = ({ record, key }: IssuedKey) => ({ ...view(record), key });
  const found = (record: ApiKeyRecord | undefined, id: string) => {
    if (record === undefined) throw missing(id);
    return view(record);
  };
  const idOf = (params: unknown) => (params as { id: string }).id;

  return {
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
      return reply.send(found(await keys.revoke(id, actor(request)), id));
    },
    async unbanApiKey(request, reply) {
      const id = idOf(request.params);
      return reply.send(found(await keys.unban(id, actor(request)), id));
    },
    async listAuditEvents(request, reply) {
      const query = request.query as AuditQuery;
      const events = await audit.list({
        after: query.after ?? 0,
        limit: query.limit ?? 100,
        ...(query.target !== undefined ? { target: query.target } : {}),
      });
      return reply.send(events);
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
