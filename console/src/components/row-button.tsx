import type { ComponentChildren } from 'preact';

/**
 * A button among a table row's actions: small, named for its row for a screen reader (`Revoke ci-token`),
 * red for what cannot be undone, and `expanded` where it shows or hides a row below.
 */
export function RowButton(props: {
  /** Its accessible name: the action and the row's own name. */
  name: string;
  danger?: boolean;
  expanded?: boolean;
  onClick: () => void;
  children: ComponentChildren;
}) {
  return (
    <button
      type="button"
      class={props.danger ? 'button-small button-danger' : 'button-small'}
      aria-expanded={props.expanded}
      aria-label={props.name}
      onClick={props.onClick}
    >
      {props.children}
    </button>
  );
}
