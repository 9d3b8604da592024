import { useState } from 'preact/hooks';
import { useAction, useFocusOnMount } from '../hooks.js';
import { ActionError } from './status.js';

const UNITS = { minutes: 60, hours: 3600, days: 86_400 } as const;
export type GraceUnit = keyof typeof UNITS;
/** The API's bound on a grace period: 30 days (`MAX_GRACE_MS` of src/keys). */
const MAX_DAYS = 30;
const MAX_SECONDS = MAX_DAYS * UNITS.days;

/**
 * Rotate: a grace period for the old key, in the `units` offered, up to the API's 30 days; 0 stops it at once.
 * Focus moves into the form when it opens, so that a keyboard or screen reader user is where it appeared.
 * `guided` (the key page, for a key holder rather than an operator) marks a field out of bounds and says why,
 * and asks a phone for a decimal keypad.
 */
export function RotateKeyForm(props: {
  units: readonly GraceUnit[];
  guided: boolean;
  onRotate: (seconds: number) => Promise<void>;
  onCancel: () => void;
}) {
  const { units, guided } = props;
  const [amount, setAmount] = useState('0');
  const [unit, setUnit] = useState<GraceUnit>('hours');
  // The page moves on once the key is rotated: the button stays disabled until then.
  const { busy, error, run } = useAction({ staysBusy: true });
  const field = useFocusOnMount<HTMLInputElement>();

  const seconds = Math.round(Number(amount) * UNITS[unit]);
  const valid = amount.trim() !== '' && Number.isFinite(seconds) && seconds >= 0 && seconds <= MAX_SECONDS;
  const tooLong = guided && Number.isFinite(seconds) && seconds > MAX_SECONDS;

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    if (!valid) return;
    await run(() => props.onRotate(seconds));
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
            {...(guided ? { inputMode: 'decimal' } : {})}
            class="grace-amount"
            value={amount}
            aria-invalid={guided && !valid ? true : undefined}
            aria-describedby="grace-hint"
            onInput={(event) => setAmount(event.currentTarget.value)}
          />
          <select
            aria-label="Unit"
            value={unit}
            onChange={(event) => setUnit(event.currentTarget.value as GraceUnit)}
          >
            {units.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <p id="grace-hint" class={tooLong ? 'hint error' : 'hint'}>
          {tooLong
            ? `Too long: the old key can keep working at most ${MAX_DAYS} days.`
            : `0 stops the old key at once; at most ${MAX_DAYS} days.`}
        </p>
        <ActionError error={error} />
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
