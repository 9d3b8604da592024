import type { RefObject } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { inBackground } from './background.js';

/**
 * How often a page asks again for what changes in the background while it is visible: a domain's checks, an
 * endpoint's deliveries.
 */
export const POLL_MS = 5000;

export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  /** Asks again now; resolves when the answer is shown. */
  reload: () => Promise<void>;
}

/**
 * Data the server owns, fetched when `deps` change and, with `everyMs`, again on that period while the page
 * is visible: a domain's state changes under a background check, and the page shows it without a reload.
 * A hidden tab asks nothing, and asks at once when it is shown again.
 */
export function useServerData<T>(load: () => Promise<T>, deps: unknown[], everyMs?: number): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<Error>();
  const loadRef = useRef(load);
  loadRef.current = load;
  // Answers of an older `deps` that arrive late must not replace the current page's.
  const generation = useRef(0);
  // Nor may the answer to any but the latest request asked: a refresh started before a change and answered
  // after the reload that shows it would put the page back as it was.
  const asked = useRef(0);

  const fetchAndShow = useCallback(async (ask: () => Promise<T>) => {
    const mine = generation.current;
    const ticket = ++asked.current;
    try {
      const value = await ask();
      if (mine !== generation.current || ticket !== asked.current) return;
      setData(value);
      setError(undefined);
    } catch (failure) {
      if (mine === generation.current && ticket === asked.current) setError(failure as Error);
    }
  }, deps);
  const reload = useCallback(() => fetchAndShow(() => loadRef.current()), [fetchAndShow]);

  useEffect(() => {
    generation.current += 1;
    setData(undefined);
    setError(undefined);
    void reload();
    if (everyMs === undefined) return undefined;
    // The page refreshing itself is not the person at work: the server does not count it as activity.
    const tick = () => {
      if (document.visibilityState === 'visible') void fetchAndShow(() => inBackground(loadRef.current));
    };
    const timer = setInterval(tick, everyMs);
    document.addEventListener('visibilitychange', tick);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', tick);
    };
  }, [reload, fetchAndShow, everyMs]);

  return { data, error, reload };
}

/**
 * Focus for an element that comes back when an inline form closes (Create key, Edit, Rotate): `returnHere`
 * asks for it, and it moves once the element is on the page again, so the keyboard goes on from where it was.
 */
export function useFocusReturn<T extends HTMLElement>(): {
  ref: RefObject<T | null>;
  returnHere: () => void;
} {
  const ref = useRef<T>(null);
  const asked = useRef(false);
  useEffect(() => {
    if (!asked.current || ref.current === null) return;
    asked.current = false;
    ref.current.focus();
  });
  return { ref, returnHere: () => (asked.current = true) };
}

/**
 * A ref whose element takes the focus when it appears: the first field of a form that just opened. As it
 * appears (a layout effect), not a frame later, where a keystroke in between would go to the page's body.
 */
export function useFocusOnMount<T extends HTMLElement>(focus = true): RefObject<T | null> {
  const ref = useRef<T>(null);
  useLayoutEffect(() => {
    if (focus) ref.current?.focus();
  }, [focus]);
  return ref;
}

/** An action a form or a dialog starts: whether it is under way, and why it failed. */
export interface Action {
  busy: boolean;
  /** The failed action's message, or one the form gives itself (a field left empty); null while none. */
  error: string | null;
  setError: (error: string | null) => void;
  /** Runs `act` with `busy` set and the last error cleared; answers whether it succeeded. */
  run: (act: () => Promise<void>) => Promise<boolean>;
}

/**
 * The state of an action a form sends or a dialog confirms: a thrown error's message becomes `error`, and the
 * form stays. `busy` ends with the action, or with `staysBusy` only when it fails: a form that goes away once
 * it succeeds (it closes, or the console moves on) keeps its button disabled until then, never sent twice.
 */
export function useAction({ staysBusy = false }: { staysBusy?: boolean } = {}): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (act: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await act();
      if (!staysBusy) setBusy(false);
      return true;
    } catch (failure) {
      setError((failure as Error).message);
      setBusy(false);
      return false;
    }
  };
  return { busy, error, setError, run };
}
