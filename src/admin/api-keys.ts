import type { ApiKey } from '../contract/index.js';
import { ApiError, answeringRefusals } from '../errors/index.js';
import type { AdminHandlers } from '../http/index.js';
import {
  type ApiKeyRecord,
  type IssuedKey,
  KeyExpiredError,
  KeyInputError,
  type KeyManager,
  KeyRevokedError,
  KeyRotatedError,
} from '../keys/index.js';
import { actorOf } from './actor.js';

type KeyOperation =
  | 'createApiKey'
  | 'listApiKeys'
  | 'getApiKey'
  | 'updateApiKey'
  | 'rotateApiKey'
  | 'revokeApiKey'
  | 'unbanApiKey';

/** The key manager's refusals as the admin API answers them. */
const checked = answeringRefusals([
  [KeyInputError, 'validation_failed'],
  [KeyRevokedError, 'key_revoked'],
  [KeyRotatedError, 'key_rotated'],
  [KeyExpiredError, 'key_expired'],
]);

/** The 404 of a key id that names no key. */
export const noKey = (id: string) => new ApiError('not_found', `No API key has the id ${id}`);

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
 * The handlers of the API keys' operations: thin callers of the key manager the CLI uses too, acting as the
 * request's principal. `keyView` is the key as the admin API shows it, made once by the composition root.
 */
export function apiKeyHandlers(deps: {
  keys: KeyManager;
  keyView: (record: ApiKeyRecord) => ApiKey;
}): Pick<AdminHandlers, KeyOperation> {
  const { keys, keyView } = deps;
  const issued = ({ record, key }: IssuedKey) => ({ ...keyView(record), key });
  const found = (record: ApiKeyRecord | undefined, id: string) => {
    if (record === undefined) throw noKey(id);
    return keyView(record);
  };
  return {
    async createApiKey(request, reply) {
      const { body } = request;
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
          actorOf(request),
        ),
      );
      return reply.code(201).send(issued(created));
    },
    async listApiKeys(_request, reply) {
      return reply.send((await keys.list()).map(keyView));
    },
    async getApiKey(request, reply) {
      const { id } = request.params;
      return reply.send(found(await keys.get(id), id));
    },
    async updateApiKey(request, reply) {
      const { id } = request.params;
      const { body } = request;
      const current = await keys.get(id);
      if (current === undefined) throw noKey(id);
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
          actorOf(request),
        ),
      );
      return reply.send(found(updated, id));
    },
    async rotateApiKey(request, reply) {
      const { id } = request.params;
      const graceSeconds = request.body?.gracePeriodSeconds ?? 0;
      const rotated = await checked(() => keys.rotate(id, graceSeconds * 1000, actorOf(request)));
      if (rotated === undefined) throw noKey(id);
      return reply.code(201).send(issued(rotated));
    },
    async revokeApiKey(request, reply) {
      const { id } = request.params;
      const revoked = await keys.revoke(id, actorOf(request));
      if (revoked === undefined) throw noKey(id);
      return reply.send({
        ...keyView(revoked.record),
        successorsRevoked: revoked.successors.map((successor) => successor.id),
      });
    },
    async unbanApiKey(request, reply) {
      const { id } = request.params;
      return reply.send(found(await keys.unban(id, actorOf(request)), id));
    },
  };
}
