import type { ComponentChildren } from 'preact';
import { OneTimeSecret } from '../../../kit/components/one-time-secret.js';
import { issuedSecret } from '../notice.js';
import { location } from '../router.js';

/**
 * The secret issued for this page (`issuedSecret`), shown once: a new admin token, a rotated key on the new
 * key's page, an endpoint's signing secret. Done forgets it, then calls `onDone` (to put the focus back).
 */
export function IssuedSecret({
  onDone,
  ...shown
}: {
  heading: string;
  /** What the secret is, for the copy button's name: `the key` unless said. */
  what?: string;
  onDone?: () => void;
  children?: ComponentChildren;
}) {
  const issued = issuedSecret.value;
  const secret = issued?.pathname === location.value.pathname ? issued.secret : null;
  if (!secret) return null;
  return (
    <OneTimeSecret
      {...shown}
      secret={secret}
      onDone={() => {
        issuedSecret.value = null;
        onDone?.();
      }}
    />
  );
}
