import { groupsOf, type RelyingParty, roleOfGroups } from '../people/index.js';
import type { PersonRecheck } from './sessions.js';

/**
 * How often a person's session asks their provider whether they are still let in: at their first request
 * after this, with their refresh token. A person removed from their groups (or from the provider) is out
 * within this of their next request.
 */
const RECHECK_MS = 5 * 60_000;

/**
 * Asks the provider about a signed-in person with their refresh token: their session ends when the provider
 * refuses the token (the person removed or disabled, their grant revoked) or when their groups no longer give
 * any role. A change of role waits for their next sign-in; a provider that cannot be asked ends nothing.
 */
export function personRecheck(relyingParty: RelyingParty): PersonRecheck {
  const { groupsClaim, roles, recheckMs } = relyingParty.options;
  return {
    everyMs: recheckMs ?? RECHECK_MS,
    async check(refreshToken, person) {
      const refreshed = await relyingParty.refresh(refreshToken, person.subject);
      if (refreshed === undefined) return undefined;
      if (refreshed === 'refused') return { ended: 'the identity provider no longer signs this person in' };
      if (roleOfGroups(groupsOf(refreshed.claims[groupsClaim]), roles) === undefined)
        return { ended: 'none of the person’s groups gives a role any more' };
      return { refreshToken: refreshed.refreshToken };
    },
  };
}
