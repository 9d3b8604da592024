import { type AdminTokenView, roleAllows } from '../contract/index.js';
import { ApiError, answeringRefusals } from '../errors/index.js';
import type { AdminHandlers } from '../http/index.js';
import {
  type AdminAuthenticator,
  type AdminTokenManager,
  type AdminTokenRecord,
  insufficientRole,
  makerNames,
  roleOf,
  tokenMaker,
} from '../identity/index.js';
import { KeyInputError } from '../keys/index.js';
import type { PeopleRepository } from '../people/index.js';
import { actorOf } from './actor.js';

/** A token as the admin API shows it: never its digest; who made it, named from `names`. */
const tokenView = (
  { digest: _digest, createdBy, ...shown }: AdminTokenRecord,
  names: ReadonlyMap<string, string>,
): AdminTokenView => ({ ...shown, createdBy: tokenMaker(createdBy, names) });

const noToken = (id: string) => new ApiError('not_found', `No admin token has the id ${id}`);

/** The manager's refusals (a name it will not take) as the admin API answers them. */
const checked = answeringRefusals([[KeyInputError, 'validation_failed']]);

/**
 * The handlers of the admin tokens' operations: the manager `petstore admin-tokens` uses, and the
 * authenticator reread after each change, so that this instance accepts a new token, and refuses a revoked
 * one, at once (the others within 5 seconds).
 */
export function tokenHandlers(deps: {
  manager: AdminTokenManager;
  authenticator: AdminAuthenticator;
  /** Everyone who signed in with OpenID Connect: a token's maker may be one of them. */
  people: Pick<PeopleRepository, 'all'>;
}): Pick<AdminHandlers, 'listAdminTokens' | 'createAdminToken' | 'revokeAdminToken'> {
  const { manager, authenticator, people } = deps;
  /** Every token, and the names of their makers. */
  async function everyToken() {
    const [tokens, everyone] = await Promise.all([manager.list(), people.all()]);
    return { tokens, names: makerNames(tokens, everyone) };
  }
  return {
    async listAdminTokens(_request, reply) {
      const { tokens, names } = await everyToken();
      return reply.send(tokens.map((token) => tokenView(token, names)));
    },
    async createAdminToken(request, reply) {
      const { body } = request;
      const own = roleOf(request);
      // The operation is the owner's; this holds whatever role may one day make tokens.
      if (!roleAllows(own, body.role))
        throw insufficientRole(`A token of the ${body.role} role`, body.role, request.admin);
      const made = await checked(() => manager.create(body.name, body.role, actorOf(request)));
      await authenticator.refresh();
      // Its maker is whoever asked: their name is the principal's.
      const names = new Map(request.admin === null ? [] : [[request.admin.id, request.admin.name]]);
      return reply.code(201).send({ ...tokenView(made.record, names), token: made.token });
    },
    async revokeAdminToken(request, reply) {
      const { id } = request.params;
      if (!(await manager.revoke(id, actorOf(request)))) throw noToken(id);
      await authenticator.refresh();
      const { tokens, names } = await everyToken();
      const record = tokens.find((token) => token.id === id);
      if (record === undefined) throw noToken(id);
      return reply.send(tokenView(record, names));
    },
  };
}
