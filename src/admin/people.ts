import type { PersonSessionsEndedView, PersonView } from '../contract/index.js';
import { ApiError } from '../errors/index.js';
import type { AdminHandlers } from '../http/index.js';
import {
  type AdminAuthenticator,
  type AdminTokenRecord,
  type AdminTokenRepository,
  type PersonToken,
  SESSION_IDLE_MS,
  type Sessions,
} from '../identity/index.js';
import type { PeopleRepository } from '../people/index.js';
import { actorOf } from './actor.js';

/** A token as the People operations show it: what it is, never its digest or prefix. */
const tokenSummary = ({ id, name, role, createdAt }: AdminTokenRecord) => ({ id, name, role, createdAt });

/**
 * The handlers of the People operations: who signed in with OpenID Connect and the tokens they made, and
 * ending their sessions (revoking those tokens too, when asked).
 */
export function peopleHandlers(deps: {
  people: PeopleRepository;
  sessions: Sessions;
  adminTokens: Pick<AdminTokenRepository, 'madeByPeople'>;
  /** Reread after a revocation, so that this instance refuses the tokens at once. */
  authenticator: Pick<AdminAuthenticator, 'refresh'>;
  now: () => number;
}): Pick<AdminHandlers, 'listPeople' | 'endPersonSessions'> {
  const { people, sessions, adminTokens, authenticator, now } = deps;
  return {
    async listPeople(_request, reply) {
      const at = now();
      const iso = (ms: number) => new Date(ms).toISOString();
      const [everyone, made] = await Promise.all([
        people.list(iso(at), iso(at - SESSION_IDLE_MS)),
        adminTokens.madeByPeople(),
      ]);
      const tokensOf = new Map<string, PersonToken[]>();
      for (const each of made) tokensOf.set(each.personId, [...(tokensOf.get(each.personId) ?? []), each]);
      const view: PersonView[] = everyone.map((person) => ({
        ...person,
        tokens: (tokensOf.get(person.id) ?? []).map(({ token, through }) => ({
          ...tokenSummary(token),
          through,
        })),
      }));
      return reply.send(view);
    },
    async endPersonSessions(request, reply) {
      const { id } = request.params;
      const revokeTokens = request.body?.revokeTokens === true;
      if ((await people.find(id)) === undefined)
        throw new ApiError('not_found', `No person has the id ${id}`);
      const { ended, revoked } = await sessions.endOfPerson(id, actorOf(request), revokeTokens);
      if (revoked.length > 0) await authenticator.refresh();
      const answer: PersonSessionsEndedView = { ended, revokedTokens: revoked.map(tokenSummary) };
      return reply.send(answer);
    },
  };
}
