import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../../../kit/components/confirm-dialog.js';
import { forgetKey } from '../shared/key-store.js';
import { callWithKey, type RevokedKey } from './api.js';
import { keyOutcome } from './outcome.js';

/**
 * Revoke, for a key that leaked: confirmed first, since nothing brings the key back. A rotated key takes the
 * keys rotated from it along (whoever holds a leaked key may have rotated it), which the dialog names.
 */
export function RevokeKey({ apiKey, replacedBy }: { apiKey: string; replacedBy: string | null }) {
  const [confirming, setConfirming] = useState(false);
  const revoke = async () => {
    const revoked = await callWithKey<RevokedKey>(apiKey, '/key/revoke', 'POST');
    keyOutcome.value = {
      kind: 'revoked',
      id: revoked.id,
      at: revoked.revokedAt,
      successors: revoked.successorsRevoked,
    };
    forgetKey();
  };
  return (
    <section class="panel" aria-labelledby="revoke-start">
      <h2 id="revoke-start">Revoke</h2>
      <p class="muted">
        For a key that leaked: it stops working at once, on every instance within 5 seconds, and so do the
        keys rotated from it.
      </p>
      <button type="button" class="button-danger" onClick={() => setConfirming(true)}>
        Revoke key…
      </button>
      {confirming && (
        <ConfirmDialog
          title="Revoke this key?"
          confirmLabel="Revoke key"
          onConfirm={revoke}
          onClose={() => setConfirming(false)}
        >
          <p>Every request with it will be refused from now on. This cannot be undone.</p>
          {replacedBy !== null && (
            <p>
              This key was rotated: revoking it also revokes <code>{replacedBy}</code>, the key that replaced
              it, and any key rotated from that one.
            </p>
          )}
        </ConfirmDialog>
      )}
    </section>
  );
}
