import type { ComponentChildren, Ref } from 'preact';
import { useId, useState } from 'preact/hooks';

interface KeyFieldProps {
  /** The text in the field, as typed or pasted. */
  value: string;
  onInput: (text: string) => void;
  /** What is wrong with the key, shown under the field and announced; none when undefined. */
  problem?: string | undefined;
  /** Buttons after the field, such as Forget key. */
  children?: ComponentChildren;
  inputRef?: Ref<HTMLInputElement>;
}

/**
 * The reader's API key, as a password field so that it is not shown over a shoulder or in a screenshot
 * unless the reader asks to see it (to check what they pasted).
 */
export function KeyField({ value, onInput, problem, children, inputRef }: KeyFieldProps) {
  const id = useId();
  const hintId = useId();
  const problemId = useId();
  const [shown, setShown] = useState(false);
  return (
    <div class="key-field">
      <label for={id}>Your API key</label>
      <div class="key-row">
        <input
          id={id}
          ref={inputRef ?? null}
          // Preact types each input type apart, and no one type is both: the attribute is a plain string.
          type={(shown ? 'text' : 'password') as 'text'}
          autocomplete="off"
          spellcheck={false}
          aria-invalid={problem === undefined ? undefined : true}
          aria-describedby={problem === undefined ? hintId : `${problemId} ${hintId}`}
          value={value}
          onInput={(event) => onInput(event.currentTarget.value)}
        />
        <button type="button" onClick={() => setShown(!shown)}>
          {shown ? 'Hide key' : 'Show key'}
        </button>
        {children}
      </div>
      {problem !== undefined && (
        <p id={problemId} class="error" role="alert">
          {problem}
        </p>
      )}
      <p id={hintId} class="hint">
        Kept in this tab only, until you forget it or close the tab. Sent only to this server.
      </p>
    </div>
  );
}
