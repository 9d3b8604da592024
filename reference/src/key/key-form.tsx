import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { keyFromInput, keyProblem } from '../shared/key-check.js';
import { KeyField } from '../shared/key-field.js';
import { forgetKey, readerKey, rememberKey } from '../shared/key-store.js';

/**
 * The key to look up. Nothing is sent while it is typed: the key is checked here on submit (its format and
 * checksum), and only a key that can be right is asked about, once. Typing used to ask at each keystroke, and
 * each refusal spent the address's anonymous quota until the page, and plain curl, got 429s.
 */
export function KeyForm({ onLookUp }: { onLookUp: () => void }) {
  const [text, setText] = useState(readerKey.value);
  const [problem, setProblem] = useState<string>();
  const input = useRef<HTMLInputElement>(null);
  // The page changes the key itself when it rotates it (the new key) or revokes it (none): the field follows,
  // before the page is painted, so that a revoked key is never on screen beside "was revoked".
  const current = readerKey.value;
  useLayoutEffect(() => setText(current), [current]);

  const submit = (event: Event) => {
    event.preventDefault();
    const key = keyFromInput(text);
    const found = keyProblem(key);
    setProblem(found);
    if (found !== undefined) {
      input.current?.focus();
      return;
    }
    setText(key);
    rememberKey(key);
    onLookUp();
  };
  const forget = () => {
    setText('');
    setProblem(undefined);
    forgetKey();
  };

  return (
    <form class="panel key-form" onSubmit={submit} noValidate>
      <KeyField
        value={text}
        problem={problem}
        inputRef={input}
        onInput={(typed) => {
          setText(typed);
          setProblem(undefined);
        }}
      />
      <div class="actions">
        <button type="submit" class="button-primary">
          Look up key
        </button>
        <button type="button" onClick={forget} disabled={current === '' && text === ''}>
          Forget key
        </button>
      </div>
    </form>
  );
}
