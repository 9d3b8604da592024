import { signal } from '@preact/signals';

// The reader's key lives in this tab only: sessionStorage dies with the tab and is not shared with other tabs,
// and localStorage or a URL would outlive it (or leak it in history and referrers). Both pages of the
// reference read it here, so a key entered on /docs is there on /docs/key.
const STORAGE_NAME = 'petstore.reference.key';

function stored(): string {
  try {
    return sessionStorage.getItem(STORAGE_NAME) ?? '';
  } catch {
    // Storage refused (a privacy setting): the key is kept in memory only.
    return '';
  }
}

/** The key the reader entered, or '' for none. */
export const readerKey = signal(stored());

/** Keeps the key for this tab. */
export function rememberKey(key: string): void {
  readerKey.value = key;
  try {
    if (key === '') sessionStorage.removeItem(STORAGE_NAME);
    else sessionStorage.setItem(STORAGE_NAME, key);
  } catch {
    // In memory only, as above.
  }
}

/** Forgets the key: gone from memory and from the tab's storage. */
export const forgetKey = () => rememberKey('');
