import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { RotateKeyForm } from '../../../kit/components/rotate-key-form.js';
import { rememberKey } from '../shared/key-store.js';
import { callWithKey, type RotatedKey } from './api.js';
import { keyOutcome } from './outcome.js';

/** Rotate: the grace period is chosen in the form; the page then works with the new key. */
export function RotateKey({ apiKey }: { apiKey: string }) {
  const [open, setOpen] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  // Cancel gives the focus back to the button that opened the form, which replaces it on the page: as the
  // button appears (a layout effect), not a frame later, where a keystroke would go to the page's body.
  const returnFocus = useRef(false);
  useLayoutEffect(() => {
    if (!open && returnFocus.current) opener.current?.focus();
    returnFocus.current = false;
  }, [open]);

  if (!open)
    return (
      <section class="panel" aria-labelledby="rotate-start">
        <h2 id="rotate-start">Rotate</h2>
        <p class="muted">
          Replace this key with a new one with the same plan, limits and scopes; this one keeps working for a
          grace period you choose, up to 30 days.
        </p>
        <button ref={opener} type="button" class="button-primary" onClick={() => setOpen(true)}>
          Rotate key…
        </button>
      </section>
    );
  const rotate = async (gracePeriodSeconds: number) => {
    const rotated = await callWithKey<RotatedKey>(apiKey, '/key/rotate', 'POST', { gracePeriodSeconds });
    keyOutcome.value = { kind: 'rotated', secret: rotated.key, oldKeyUntil: rotated.replacedKeyExpiresAt };
    rememberKey(rotated.key);
  };
  const cancel = () => {
    returnFocus.current = true;
    setOpen(false);
  };
  return <RotateKeyForm units={['minutes', 'hours', 'days']} guided onRotate={rotate} onCancel={cancel} />;
}
