import type { Role } from '../../../src/contract/roles.js';
import { href } from '../router.js';
import { session } from '../session.js';
import { useTitle } from '../title.js';

/** The identity provider's name, as the server writes it on the page (`<html data-oidc-provider>`). */
const PROVIDER = document.documentElement.dataset.oidcProvider ?? 'your identity provider';

/**
 * A page the session's role may not open (its address typed or followed): which role it needs, the session's
 * own, and who can give that, in words; the page's data is never asked for, so no operation's name shows.
 */
export function NoAccess({ page, needs }: { page: string | undefined; needs: Role }) {
  useTitle(page ?? 'No access');
  const current = session.value;
  if (!current) return null;
  const lacking = `${page === undefined ? 'This' : `The ${page}`} page needs the ${needs} role.`;
  return (
    <>
      <h1 tabIndex={-1}>{page ?? 'No access'}</h1>
      {current.person === null ? (
        <>
          <p>
            {lacking} You are signed in with the {current.role} role, the role of the admin token{' '}
            {current.tokenName ?? current.tokenId}.
          </p>
          <p>
            An owner can make you an admin token of the {needs} role, on the{' '}
            <a href={href('admin-tokens')}>Admin tokens</a> page or with{' '}
            <code>petstore admin-tokens create --role {needs}</code>; sign out and sign in with it.
          </p>
        </>
      ) : (
        <>
          <p>
            {lacking} Your groups at {PROVIDER} give you the {current.role} role.
          </p>
          <p>
            Your role comes from those groups: ask an owner of this console to add you to a group that gives
            the {needs} role, then sign in again.
          </p>
        </>
      )}
    </>
  );
}
