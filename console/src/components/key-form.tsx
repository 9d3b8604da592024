import { useId, useState } from 'preact/hooks';
import { ActionError } from '../../../kit/components/status.js';
import { fromDateTimeInput, toDateTimeInput } from '../../../kit/format.js';
import { useAction, useFocusOnMount } from '../../../kit/hooks.js';
import { PLAN_NAMES, PLANS, SCOPE_NAMES, SCOPES } from '../plans.js';
import type { PlanName, Scope } from '../types.js';

/** What the form edits: the fields of a key that an operator sets. */
export interface KeyFields {
  name: string;
  plan: PlanName;
  scopes: Scope[];
  /** RFC 3339, or null: never expires. */
  expiresAt: string | null;
  /** Enterprise keys only. */
  perMinute: number | null;
  perDay: number | null;
}

interface KeyFormProps {
  initial: KeyFields;
  submitLabel: string;
  /** Sends the fields; a thrown error is shown and the form stays. */
  onSubmit: (fields: KeyFields) => Promise<void>;
  onCancel: () => void;
}

/**
 * Create and edit a key: plan, name, scopes, expiry, and the limits of an enterprise key. It opens in the
 * page, below the button that opened it, with the focus on its first field.
 */
export function KeyForm({ initial, submitLabel, onSubmit, onCancel }: KeyFormProps) {
  const [fields, setFields] = useState(initial);
  // The form closes once it is sent: its button stays disabled until then.
  const { busy, error, run } = useAction({ staysBusy: true });
  const prefix = useId();
  const first = useFocusOnMount<HTMLInputElement>();
  const set = (change: Partial<KeyFields>) => setFields({ ...fields, ...change });
  const toggleScope = (scope: Scope, on: boolean) =>
    set({
      scopes: on
        ? SCOPE_NAMES.filter((name) => name === scope || fields.scopes.includes(name))
        : fields.scopes.filter((name) => name !== scope),
    });
  const limit = (value: string) => (value === '' ? null : Number(value));

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    await run(() => onSubmit(fields));
  };

  return (
    <form class="form-grid" onSubmit={submit}>
      <label for={`${prefix}-name`}>Name</label>
      <input
        id={`${prefix}-name`}
        ref={first}
        value={fields.name}
        maxLength={100}
        autocomplete="off"
        onInput={(event) => set({ name: event.currentTarget.value })}
      />
      <label for={`${prefix}-plan`}>Plan</label>
      <select
        id={`${prefix}-plan`}
        value={fields.plan}
        onChange={(event) => set({ plan: event.currentTarget.value as PlanName })}
      >
        {PLAN_NAMES.map((plan) => (
          <option key={plan} value={plan}>
            {PLANS[plan]}
          </option>
        ))}
      </select>
      {fields.plan === 'enterprise' && (
        <>
          <label for={`${prefix}-minute`}>Requests per minute</label>
          <input
            id={`${prefix}-minute`}
            type="number"
            min={1}
            required
            value={fields.perMinute ?? ''}
            onInput={(event) => set({ perMinute: limit(event.currentTarget.value) })}
          />
          <label for={`${prefix}-day`}>Requests per day</label>
          <input
            id={`${prefix}-day`}
            type="number"
            min={1}
            required
            value={fields.perDay ?? ''}
            onInput={(event) => set({ perDay: limit(event.currentTarget.value) })}
          />
        </>
      )}
      <fieldset>
        <legend>Scopes</legend>
        {SCOPE_NAMES.map((scope) => (
          <label key={scope} class="check-label">
            <input
              type="checkbox"
              checked={fields.scopes.includes(scope)}
              onChange={(event) => toggleScope(scope, event.currentTarget.checked)}
            />{' '}
            {SCOPES[scope]} <code>{scope}</code>
          </label>
        ))}
      </fieldset>
      <label for={`${prefix}-expires`}>Expires (UTC, empty: never)</label>
      <input
        id={`${prefix}-expires`}
        type="datetime-local"
        value={toDateTimeInput(fields.expiresAt)}
        onInput={(event) => set({ expiresAt: fromDateTimeInput(event.currentTarget.value) ?? null })}
      />
      <ActionError error={error} />
      <div class="actions">
        <button type="submit" class="button-primary" disabled={busy || fields.scopes.length === 0}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
