import { useId, useState } from 'preact/hooks';
import { ActionError } from '../../../kit/components/status.js';
import { useAction } from '../../../kit/hooks.js';
import type { EventType } from '../types.js';
import { EventPicker } from './event-picker.js';

/** What the form edits: the fields of an endpoint an operator sets. */
export interface WebhookFields {
  url: string;
  description: string;
  events: EventType[];
}

/** A new endpoint receives the store's orders unless the operator picks otherwise. */
export const NEW_WEBHOOK: WebhookFields = { url: '', description: '', events: ['order.placed'] };

interface WebhookFormProps {
  heading: string;
  initial: WebhookFields;
  submitLabel: string;
  /** Sends the fields; a thrown error is shown and the form stays. */
  onSubmit: (fields: WebhookFields) => Promise<void>;
  onCancel?: () => void;
}

/** Add endpoint, and Edit: a URL, what it is for, and its event types. */
export function WebhookForm({ heading, initial, submitLabel, onSubmit, onCancel }: WebhookFormProps) {
  const [fields, setFields] = useState(initial);
  const { busy, error, run } = useAction();
  const prefix = useId();
  const set = (change: Partial<WebhookFields>) => setFields({ ...fields, ...change });

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    await run(() => onSubmit({ ...fields, url: fields.url.trim(), description: fields.description.trim() }));
  };

  return (
    <form class="panel form-grid" onSubmit={submit} aria-labelledby={`${prefix}-heading`}>
      <h2 id={`${prefix}-heading`}>{heading}</h2>
      <label for={`${prefix}-url`}>Endpoint URL</label>
      <input
        id={`${prefix}-url`}
        type="url"
        placeholder="https://hooks.example.com/petstore"
        autocomplete="off"
        spellcheck={false}
        required
        maxLength={2048}
        aria-describedby={`${prefix}-url-hint`}
        value={fields.url}
        onInput={(event) => set({ url: event.currentTarget.value })}
      />
      <p id={`${prefix}-url-hint`} class="hint">
        Events are POSTed here, signed. A user name and password in it are sent, and never shown again.
      </p>
      <label for={`${prefix}-description`}>Description (optional)</label>
      <input
        id={`${prefix}-description`}
        maxLength={500}
        autocomplete="off"
        value={fields.description}
        onInput={(event) => set({ description: event.currentTarget.value })}
      />
      <EventPicker selected={fields.events} onChange={(events) => set({ events })} />
      <ActionError error={error} />
      <div class="actions">
        <button
          type="submit"
          class="button-primary"
          disabled={busy || fields.events.length === 0 || !fields.url.trim()}
        >
          {busy ? 'Saving…' : submitLabel}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
