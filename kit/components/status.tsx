/** Shown while a page's data is on its way. */
export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

/** Why a page's data could not be shown. */
export function LoadError({ error }: { error: Error }) {
  return (
    <p class="error" role="alert">
      {error.message}
    </p>
  );
}

/** Why an action (a form sent, a dialog confirmed) failed; nothing while it has not. */
export function ActionError({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}
