/** Calls started while this is above zero are a page refreshing itself, not the person at work. */
let background = 0;

/**
 * Runs `load` as a background refresh: the calls it starts at once (before its first await) are marked, and
 * the server does not count them as activity, so an unattended screen still ends its session when idle.
 */
export function inBackground<T>(load: () => Promise<T>): Promise<T> {
  background += 1;
  try {
    return load();
  } finally {
    background -= 1;
  }
}

/** Whether a call starting now is part of a background refresh (see `inBackground`). */
export function isBackground(): boolean {
  return background > 0;
}
