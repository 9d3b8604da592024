import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../../../console/src/components/confirm-dialog.js';
import { forgetKey } from '../shared/key-store.js';
import { callWithKey, type RevokedKey } from './api.js';
import { keyOutcome } from './outcome.js';

/** Revoke, for a key that leaked: confirmed first, since nothing brings the key back. */
export function RevokeKey({ apiKey }: { apiKey: string }) {
  const [confirming, setConfirming] = useState(false);
  const revoke = async () => {
    const revoked = await callWithKey<RevokedKey>(apiKey, '/key/revoke', 'POST');
    keyOutcome.value = { kind: 'revoked', id: revoked.id, at: revoked.revokedAt };
    forgetKey();
  };
  return (
    <section class="panel" aria-labelledby="revoke-start">
      <h2 id="revoke-start">Revoke</h2>
      <p class="muted">
        For a key that leaked: it stops working at once, on every instance within 5 seconds. A key that
        replaced it by rotation keeps working.
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
        </ConfirmDialog>
      )}
    </section>
  );
}
