import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { useAction } from '../hooks.js';
import { ActionError } from './status.js';

interface ConfirmDialogProps {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  /** Runs the action; a thrown error is shown in the dialog, which stays open. */
  onConfirm: () => Promise<void>;
  onClose: () => void;
}

/**
 * A modal confirmation of an action that cannot be undone. The browser's `<dialog>` keeps focus inside and
 * closes on Escape; focus starts on Cancel, so Enter alone never confirms, and returns to where it was.
 */
export function ConfirmDialog({ title, children, confirmLabel, onConfirm, onClose }: ConfirmDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  // The dialog closes once the action is done: Confirm stays disabled until then.
  const { busy, error, run } = useAction({ staysBusy: true });

  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    dialog.current?.showModal();
    return () => opener?.focus();
  }, []);

  const confirm = () =>
    run(async () => {
      await onConfirm();
      onClose();
    });

  return (
    <dialog ref={dialog} class="dialog" aria-labelledby={titleId} onClose={onClose}>
      <h2 id={titleId}>{title}</h2>
      <div class="dialog-body">{children}</div>
      <ActionError error={error} />
      <div class="actions">
        <button type="button" autofocus onClick={() => dialog.current?.close()}>
          Cancel
        </button>
        <button type="button" class="button-danger" disabled={busy} onClick={confirm}>
          {busy ? 'Working…' : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
