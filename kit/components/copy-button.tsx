import { useEffect, useState } from 'preact/hooks';

/**
 * Copies a value to the clipboard. `what` names it for screen readers ("Copy the key"), since every such
 * button reads "Copy". The outcome is announced in a live region.
 */
export function CopyButton({ value, what }: { value: string; what: string }) {
  const [outcome, setOutcome] = useState<'copied' | 'failed' | null>(null);
  useEffect(() => {
    if (outcome === null) return undefined;
    const timer = setTimeout(() => setOutcome(null), 3000);
    return () => clearTimeout(timer);
  }, [outcome]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setOutcome('copied');
    } catch {
      // No clipboard (an insecure origin, or permission refused): the value is on screen to select.
      setOutcome('failed');
    }
  };

  // The name begins with the visible word, which changes once copied (WCAG 2.5.3, label in name).
  const word = outcome === 'copied' ? 'Copied' : 'Copy';
  return (
    <span class="copy">
      <button type="button" class="button-small" onClick={copy} aria-label={`${word} ${what}`}>
        {word}
      </button>
      <span class="copy-outcome" role="status">
        {outcome === 'failed' ? 'Could not copy; select the text instead.' : ''}
      </span>
    </span>
  );
}
