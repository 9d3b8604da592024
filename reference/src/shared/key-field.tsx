import { useId } from 'preact/hooks';
import { forgetKey, readerKey, rememberKey } from './key-store.js';

/**
 * The reader's API key, entered once for the tab, as a password field so it is not shown over a shoulder or
 * in a screenshot, with a visible way to forget it.
 */
export function KeyField() {
  const id = useId();
  const hintId = useId();
  return (
    <div class="key-field">
      <label for={id}>Your API key</label>
      <div class="key-row">
        <input
          id={id}
          type="password"
          autocomplete="off"
          spellcheck={false}
          aria-describedby={hintId}
          value={readerKey.value}
          onInput={(event) => rememberKey(event.currentTarget.value.trim())}
        />
        <button type="button" onClick={forgetKey} disabled={readerKey.value === ''}>
          Forget key
        </button>
      </div>
      <p id={hintId} class="hint">
        Kept in this tab only, until you forget it or close the tab. Sent only to this server.
      </p>
    </div>
  );
}
