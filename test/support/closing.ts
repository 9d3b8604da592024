/** Anything a test starts and must close again: a server, a browser, a provider. */
export interface Closable {
  close(): Promise<unknown>;
}

/**
 * Runs `start`, which hands each thing it starts to `keep`, and answers what it builds with a `close` that
 * closes them, the last started first. If `start` fails, what it had kept is closed before the error goes
 * on: a server left running would hold the test's process open.
 */
export async function startClosing<T>(
  start: (keep: <C extends Closable>(started: C) => C) => Promise<T>,
): Promise<T & { close(): Promise<void> }> {
  const kept: Closable[] = [];
  const close = async () => {
    for (const started of kept.splice(0).reverse()) await started.close();
  };
  try {
    const built = await start((started) => {
      kept.push(started);
      return started;
    });
    return { ...built, close };
  } catch (error) {
    await close();
    throw error;
  }
}
