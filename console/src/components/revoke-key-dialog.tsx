import { ConfirmDialog } from '../../../kit/components/confirm-dialog.js';
import { useServerData } from '../../../kit/hooks.js';
import { api } from '../api.js';
import { href } from '../router.js';
import type { ApiKey } from '../types.js';

/**
 * The keys rotated from a key that still work, in the order they were made: revoking the key revokes them
 * too (whoever holds a leaked key may have rotated it to a key of their own), so they are named before.
 */
async function successorsOf(key: ApiKey): Promise<ApiKey[]> {
  const chain: ApiKey[] = [];
  const seen = new Set([key.id]);
  for (let next = key.replacedBy; next !== null && !seen.has(next); ) {
    seen.add(next);
    const successor = await api.getKey(next);
    if (successor.state !== 'revoked') chain.push(successor);
    next = successor.replacedBy;
  }
  return chain;
}

/** Confirms the revocation of a key, naming the keys rotated from it that go with it. */
export function RevokeKeyDialog({
  apiKey,
  onRevoked,
  onClose,
}: {
  apiKey: ApiKey;
  onRevoked: () => Promise<void>;
  onClose: () => void;
}) {
  const successors = useServerData(() => successorsOf(apiKey), [apiKey.id]);
  const others = successors.data ?? [];
  const count = others.length + 1;
  return (
    <ConfirmDialog
      title={
        others.length === 0 ? `Revoke ${apiKey.name}?` : `Revoke ${apiKey.name} and ${others.length} more?`
      }
      confirmLabel={others.length === 0 ? 'Revoke key' : `Revoke ${count} keys`}
      onConfirm={async () => {
        await api.revokeKey(apiKey.id);
        await onRevoked();
      }}
      onClose={onClose}
    >
      <p>
        Every request with {others.length === 0 ? 'this key' : 'these keys'} is refused within 5 seconds, on
        every instance. A revoked key cannot be used again.
      </p>
      {others.length > 0 && (
        <>
          <p>This key was rotated. Revoking it also revokes the keys rotated from it:</p>
          <ul>
            {others.map((other) => (
              <li key={other.id}>
                <a href={href('keys', other.id)}>{other.name}</a> <code>{other.id}</code> ({other.prefix}…)
              </li>
            ))}
          </ul>
          <p>To end only this key's grace period and keep its successor, edit its expiry to now instead.</p>
        </>
      )}
      {successors.error && <p class="error">Its successors could not be read: {successors.error.message}</p>}
    </ConfirmDialog>
  );
}
