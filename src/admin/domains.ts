import { DomainConflictError, DomainInputError, type DomainManager } from '../domains/index.js';
import { ApiError, answeringRefusals } from '../errors/index.js';
import type { AdminHandlers } from '../http/index.js';
import { actorOf } from './actor.js';

type DomainOperation =
  | 'listDomains'
  | 'getDomainSettings'
  | 'addDomain'
  | 'getDomain'
  | 'verifyDomain'
  | 'removeDomain';

/** The domain manager's refusals as the admin API answers them. */
const checked = answeringRefusals([
  [DomainInputError, 'validation_failed'],
  [DomainConflictError, 'domain_conflict'],
]);

const noDomain = (name: string) =>
  new ApiError('not_found', `${name.slice(0, 100)} is not a custom domain of this service`);

/** The handlers of the custom domains: thin callers of the domain manager the CLI uses too. */
export function domainHandlers(deps: { domains: DomainManager }): Pick<AdminHandlers, DomainOperation> {
  const { domains } = deps;
  return {
    async getDomainSettings(_request, reply) {
      return reply.send(domains.settings());
    },
    async listDomains(_request, reply) {
      return reply.send((await domains.list()).map((record) => domains.view(record)));
    },
    async addDomain(request, reply) {
      const { body } = request;
      const record = await checked(() =>
        domains.add(
          body.name,
          {
            ...(body.primary !== undefined ? { primary: body.primary } : {}),
            ...(body.redirectTo !== undefined ? { redirectTo: body.redirectTo } : {}),
            ...(body.redirectStatus !== undefined ? { redirectStatus: body.redirectStatus } : {}),
          },
          actorOf(request),
        ),
      );
      return reply.code(201).send(domains.view(record));
    },
    async getDomain(request, reply) {
      const { name } = request.params;
      const record = await domains.get(name);
      if (record === undefined) throw noDomain(name);
      return reply.send(domains.view(record));
    },
    async verifyDomain(request, reply) {
      const { name } = request.params;
      const record = await domains.verify(name, actorOf(request));
      if (record === undefined) throw noDomain(name);
      return reply.send(domains.view(record));
    },
    async removeDomain(request, reply) {
      const { name } = request.params;
      const removal = await checked(() => domains.remove(name, actorOf(request)));
      if (removal === undefined) throw noDomain(name);
      return reply.send({ name: removal.removed.name, dnsStillPointsHere: removal.stillPointsHere });
    },
  };
}
