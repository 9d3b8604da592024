import type { AdminOperationId, AdminTokenView, NewAdminToken } from '../contract/index.js';
import { roleAllows } from '../contract/index.js';
import { ApiError } from '../errors/index.js';
import type { OperationHandler } from '../http/index.js';
import { KeyInputError } from '../keys/index.js';
import type { AdminAuthenticator } from './authenticator.js';
import { insufficientRole, roleOf } from './roles.js';
import type { AdminTokenManager, AdminTokenRecord } from './tokens.js';

type TokenOperation = 'listAdminTokens' | 'createAdminToken' | 'revokeAdminToken';

/** A token as the admin API shows it: never its digest. */
const tokenView = ({ digest: _digest, ...shown }: AdminTokenRecord): AdminTokenView => shown;

const noToken = (id: string) => new ApiError('not_found', `No admin token has the id ${id}`);

/**
 * The handlers of the admin tokens' operations: the manager `petstore admin-tokens` uses, and the
 * authenticator reread after each change, so that this instance accepts a new token, and refuses a revoked
 * one, at once (the others within 5 seconds).
 */
export function tokenHandlers(deps: {
  manager: AdminTokenManager;
  authenticator: AdminAuthenticator;
  actor: (request: { admin: { id: string } | null }) => string;
}): Record<TokenOperation & AdminOperationId, OperationHandler> {
  const { manager, authenticator, actor } = deps;
  return {
    async listAdminTokens(_request, reply) {
      return reply.send((await manager.list()).map(tokenView));
    },
    async createAdminToken(request, reply) {
      const body = request.body as NewAdminToken;
      const own = roleOf(request);
      // The operation is the owner's; this holds whatever role may one day make tokens.
      if (!roleAllows(own, body.role))
        throw insufficientRole(`A token of the ${body.role} role`, body.role, request.admin);
      let made: Awaited<ReturnType<AdminTokenManager['create']>>;
      try {
        made = await manager.create(body.name, body.role, actor(request));
      } catch (error) {
        if (error instanceof KeyInputError) throw new ApiError('validation_failed', error.message);
        throw error;
      }
      await authenticator.refresh();
      return reply.code(201).send({ ...tokenView(made.record), token: made.token });
    },
    async revokeAdminToken(request, reply) {
      const { id } = request.params as { id: string };
      if (!(await manager.revoke(id, actor(request)))) throw noToken(id);
      await authenticator.refresh();
      const record = (await manager.list()).find((token) => token.id === id);
      if (record === undefined) throw noToken(id);
      return reply.send(tokenView(record));
    },
  };
}
