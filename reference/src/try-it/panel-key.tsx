import { useState } from 'preact/hooks';
import { keyFromInput } from '../shared/key-check.js';
import { KeyField } from '../shared/key-field.js';
import { forgetKey, readerKey, rememberKey } from '../shared/key-store.js';

/**
 * The panel's key field: what is typed is kept for the tab as it is typed (nothing is sent until Send), the
 * key itself taken out of a pasted `Bearer …`.
 */
export function PanelKey() {
  const [text, setText] = useState(readerKey.value);
  const forget = () => {
    setText('');
    forgetKey();
  };
  return (
    <KeyField
      value={text}
      onInput={(typed) => {
        setText(typed);
        rememberKey(keyFromInput(typed));
      }}
    >
      <button type="button" onClick={forget} disabled={readerKey.value === '' && text === ''}>
        Forget key
      </button>
    </KeyField>
  );
}
