import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { CopyButton } from './copy-button.js';

/**
 * A secret just made, shown this once: a key (created or rotated), of which the server keeps only its
 * digest, or a webhook endpoint's signing secret. The console forgets it when the operator chooses Done or
 * leaves the page.
 */
export function OneTimeSecret(props: {
  secret: string;
  heading: string;
  onDone: () => void;
  /** What the secret is, for the copy button's name: `the key` unless said. */
  what?: string;
  children?: ComponentChildren;
}) {
  const { secret, heading, onDone, what = 'the key', children } = props;
  const region = useRef<HTMLElement>(null);
  useEffect(() => region.current?.focus(), []);
  return (
    <section class="panel new-key" aria-labelledby="new-key-heading" tabIndex={-1} ref={region}>
      <h2 id="new-key-heading">{heading}</h2>
      <p>
        <strong>Copy it now. It will not be shown again.</strong> Store it where your application reads its
        secrets.
      </p>
      <div class="secret">
        <code data-testid="new-key">{secret}</code>
        <CopyButton value={secret} what={what} />
      </div>
      <div class="actions">
        <button type="button" onClick={onDone}>
          Done
        </button>
        {children}
      </div>
    </section>
  );
}
