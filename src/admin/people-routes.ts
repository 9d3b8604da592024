import type { AdminOperationId } from '../contract/index.js';
import { ApiError } from '../errors/index.js';
import type { OperationHandler } from '../http/index.js';
import type { PeopleRepository } from '../people/index.js';
import { SESSION_IDLE_MS, type Sessions } from './sessions.js';

type PeopleOperation = 'listPeople' | 'endPersonSessions';

/** The handlers of the People operations: who signed in with OpenID Connect, and ending their sessions. */
export function peopleHandlers(deps: {
  people: PeopleRepository;
  sessions: Sessions;
  actor: (request: { admin: { id: string } | null }) => string;
  now: () => number;
}): Record<PeopleOperation & AdminOperationId, OperationHandler> {
  const { people, sessions, actor, now } = deps;
  return {
    async listPeople(_request, reply) {
      const at = now();
      const iso = (ms: number) => new Date(ms).toISOString();
      return reply.send(await people.list(iso(at), iso(at - SESSION_IDLE_MS)));
    },
    async endPersonSessions(request, reply) {
      const { id } = request.params as { id: string };
      if ((await people.find(id)) === undefined)
        throw new ApiError('not_found', `No person has the id ${id}`);
      return reply.send({ ended: (await sessions.endOfPerson(id, actor(request), false)).ended });
    },
  };
}
