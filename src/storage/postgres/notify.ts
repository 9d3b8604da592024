import pg from 'pg';

/** The channel on which a category write tells every instance that its cached list is stale. */
const CATEGORIES_CHANNEL = 'petstore_categories';

export interface CategoriesChannel {
  /**
   * Tells every instance that categories changed, once per turn of the event loop however many were
   * created. Call it after the creates committed: an instance told earlier could reload the list without them.
   */
  changed(): void;
  /** Calls `notify` on every change another instance announces, and whenever some may have been missed. */
  watch(notify: () => void): Promise<void>;
  close(): Promise<void>;
}

/**
 * Cache invalidation across a fleet, by PostgreSQL's LISTEN/NOTIFY.
 *
 * The notification is sent in a statement of its own, not in the creates' transaction: a transaction that
 * notifies takes a lock over the whole server while it commits, which stops PostgreSQL from sharing one
 * flush among commits (measured: one fsync per create, 3.2k creates/s, against shared flushes without it).
 *
 * A dedicated connection listens. Whenever it listens (again), the watchers are told: notifications sent
 * while no connection listened were missed, and a list loaded meanwhile may be stale. A lost connection is
 * replaced, a second later and again until it works (a failed reconnect emits no 'error' of its own).
 */
export function createCategoriesChannel(
  pool: pg.Pool,
  options: { url: string; types: pg.CustomTypesConfig },
) {
  const watchers = new Set<() => void>();
  let listener: pg.Client | undefined;
  let closed = false;
  let scheduled = false;
  const notifyAll = () => {
    for (const notify of watchers) notify();
  };
  const relisten = (): void => {
    setTimeout(() => listen().catch(relisten), 1_000).unref();
  };

  async function listen(): Promise<void> {
    if (closed || watchers.size === 0) return;
    const client = new pg.Client({ connectionString: options.url, types: options.types });
    client.on('notification', notifyAll);
    client.on('error', () => {
      client.end().catch(() => {});
      if (listener !== client) return;
      listener = undefined;
      notifyAll();
      relisten();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CATEGORIES_CHANNEL}`);
    } catch (error) {
      client.end().catch(() => {});
      throw error;
    }
    listener = client;
    notifyAll();
  }

  return {
    changed() {
      if (scheduled) return;
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        // A lost notification costs another instance a stale list until its next reconnect or write; the
        // creates themselves have committed, so a failure here is not the client's.
        pool.query(`SELECT pg_notify('${CATEGORIES_CHANNEL}', '')`).catch(() => {});
      });
    },
    async watch(notify) {
      watchers.add(notify);
      if (listener === undefined) await listen();
    },
    async close() {
      closed = true;
      await listener?.end().catch(() => {});
    },
  } satisfies CategoriesChannel;
}
