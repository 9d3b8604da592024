import type { ComponentChildren } from 'preact';
import type { Loaded } from '../hooks.js';
import { LoadError, Loading } from './status.js';

/**
 * A list the server owns, as it arrives: why it could not be loaded, Loading while it is on its way, `empty`
 * when it holds nothing, and otherwise `children` of its rows (a refresh that fails keeps them, below the
 * error). Without `empty`, an empty list goes to `children` too.
 */
export function LoadedList<T>({
  list,
  what,
  empty,
  children,
}: {
  list: Loaded<T[]>;
  /** What is on its way, for "Loading …". */
  what: string;
  empty?: ComponentChildren;
  children: (rows: T[]) => ComponentChildren;
}) {
  return (
    <>
      {list.error && <LoadError error={list.error} />}
      {!list.data && !list.error && <Loading what={what} />}
      {list.data && (list.data.length === 0 && empty !== undefined ? empty : children(list.data))}
    </>
  );
}
