import { useState } from 'preact/hooks';
import { OneTimeSecret } from '../../../kit/components/one-time-secret.js';
import { formatTime } from '../../../kit/format.js';
import { keyProblem } from '../shared/key-check.js';
import { readerKey } from '../shared/key-store.js';
import { KeyDetails } from './key-details.js';
import { KeyForm } from './key-form.js';
import { keyOutcome } from './outcome.js';

/** `/docs/key`: the reader enters their key and sees what the service knows of it, and can rotate or revoke it. */
export function KeyPage() {
  // A key this tab already holds (entered on /docs, or here before a reload) is looked up at once if it can be
  // a key: the reader entered it whole. One being typed in the panel, or mistyped, waits for Look up key.
  const [lookups, setLookups] = useState(() => (keyProblem(readerKey.value) === undefined ? 1 : 0));
  return (
    <main class="main key-page">
      <h1>Your API key</h1>
      <p>
        Its plan, limits and usage, as <code>GET /v1/key</code> and <code>GET /v1/key/usage</code> answer them
        (reading them spends none of your quota); and rotation or revocation of this key.
      </p>
      <Outcome />
      <KeyForm onLookUp={() => setLookups(lookups + 1)} />
      {/* A new lookup asks again, even for the same key; a rotation asks for the new key without one. */}
      {lookups > 0 && readerKey.value !== '' && <KeyDetails key={lookups} apiKey={readerKey.value} />}
    </main>
  );
}

/** The new key of a rotation, shown this once; or that the key was revoked. */
function Outcome() {
  const outcome = keyOutcome.value;
  if (outcome === null) return null;
  const done = () => {
    keyOutcome.value = null;
  };
  if (outcome.kind === 'rotated')
    return (
      <OneTimeSecret secret={outcome.secret} heading="Your new key" onDone={done}>
        <p class="hint">
          This page now uses the new key. The old one works until {formatTime(outcome.oldKeyUntil)}.
        </p>
      </OneTimeSecret>
    );
  return (
    <p class="notice" role="status">
      The key <code>{outcome.id}</code> was revoked at {formatTime(outcome.at)}
      {outcome.successors.length > 0 && (
        <>
          , with the keys rotated from it: <code>{outcome.successors.join(', ')}</code>
        </>
      )}
      ; this page forgot it.
    </p>
  );
}
