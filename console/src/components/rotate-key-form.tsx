import { useState } from 'preact/hooks';
import { useFocusOnMount } from '../../../kit/hooks.js';

const UNITS = { minutes: 60, hours: 3600 } as const;
/** The API's bound on a grace period: 30 days. */
const MAX_SECONDS = 30 * 86_400;

/** Rotate: a grace period for the old key, in minutes or hours; 0 stops it at once. Opens with its field focused. */
export function RotateKeyForm(props: { onRotate: (seconds: number) => Promise<void>; onCancel: () => void }) {
  const [amount, setAmount] = useState('0');
  const [unit, setUnit] = useState<keyof typeof UNITS>('hours');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const field = useFocusOnMount<HTMLInputElement>();
  const seconds = Math.round(Number(amount) * UNITS[unit]);
  const valid = amount !== '' && Number.isFinite(seconds) && seconds >= 0 && seconds <= MAX_SECONDS;

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await props.onRotate(seconds);
    } catch (failure) {
      setError((failure as Error).message);
      setBusy(false);
    }
  };

  return (
    <section class="panel" aria-labelledby="rotate-heading">
      <h2 id="rotate-heading">Rotate the key</h2>
      <p class="muted">
        A new key replaces this one, with the same plan, limits and scopes. The old key keeps working for the
        grace period, so that you can deploy the new one; the two share one budget.
      </p>
      <form onSubmit={submit}>
        <label for="grace">Grace period</label>
        <div class="inline">
          <input
            id="grace"
            ref={field}
            type="number"
            min={0}
            step="any"
            value={amount}
            aria-describedby="grace-hint"
            onInput={(event) => setAmount(event.currentTarget.value)}
          />
          <select
            aria-label="Unit"
            value={unit}
            onChange={(event) => setUnit(event.currentTarget.value as keyof typeof UNITS)}
          >
            <option value="minutes">minutes</option>
            <option value="hours">hours</option>
          </select>
        </div>
        <p id="grace-hint" class="hint">
          0 stops the old key at once; at most 30 days.
        </p>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <div class="actions">
          <button type="submit" class="button-primary" disabled={busy || !valid}>
            {busy ? 'Rotating…' : 'Rotate key'}
          </button>
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
