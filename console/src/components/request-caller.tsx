import { href } from '../router.js';
import type { AdminLoggedRequest } from '../types.js';

/** Who asked: the key as a link to its page, the admin token, or the client address of a caller without either. */
export function RequestCaller({ request }: { request: AdminLoggedRequest }) {
  if (request.keyId) return <a href={href('keys', request.keyId)}>{request.keyId}</a>;
  if (request.actor)
    return (
      <>
        Admin <code>{request.actor}</code>
      </>
    );
  return (
    <>
      No key <code class="muted">{request.client ?? ''}</code>
    </>
  );
}
