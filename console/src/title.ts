import { useEffect } from 'preact/hooks';

/** Sets the window's title for the page shown. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Pet Store console`;
  }, [title]);
}
