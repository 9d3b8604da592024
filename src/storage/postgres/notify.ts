import type pg from 'pg';
import { pgDriver } from './driver.js';

/**
 * The channels on which a write tells every instance that what it keeps in memory is stale: the category
 * list, and the custom domains.
 */
export const CHANNELS = { categories: 'petstore_categories', domains: 'petstore_domains' } as const;
export type Channel = keyof typeof CHANNELS;

export interface Notifier {
  /**
   * Tells every instance that `channel` changed, once per turn of the event loop however many writes there
   * were. Call it after the writes committed: an instance told earlier could reload without them.
   */
  changed(channel: Channel): void;
  /** Calls `notify` on every change of `channel` announced, and whenever some may have been missed. */
  watch(channel: Channel, notify: () => void): Promise<void>;
  close(): Promise<void>;
}

/**
 * Cache invalidation across a fleet, by PostgreSQL's LISTEN/NOTIFY. Category creates notify inside their
 * group-commit transaction (one NOTIFY per batch, delivered only if it commits; group-commit.ts); `changed`
 * serves the other writes, with a statement of its own after they committed.
 *
 * A dedicated connection listens on every channel. Whenever it listens (again), every watcher is told:
 * notifications sent while no connection listened were missed, and what was loaded meanwhile may be stale.
 * A lost connection is replaced, a second later and again until it works (a failed reconnect emits no
 * 'error' of its own).
 */
export function createNotifier(
  pool: pg.Pool,
  options: { url: string; types: pg.CustomTypesConfig },
): Notifier {
  const watchers = new Map<Channel, Set<() => void>>();
  const byName = new Map<string, Channel>(
    Object.entries(CHANNELS).map(([channel, name]) => [name, channel as Channel]),
  );
  let listener: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let closed = false;
  const scheduled = new Set<Channel>();
  const tell = (channel: Channel) => {
    for (const notify of watchers.get(channel) ?? []) notify();
  };
  const tellAll = () => {
    for (const channel of watchers.keys()) tell(channel);
  };
  /**
   * A lost notification leaves another instance stale until its next reconnect or poll; the writes
   * themselves have committed, so a failure here is not the client's.
   */
  const notify = async (channel: Channel) => {
    await pool.query(`SELECT pg_notify('${CHANNELS[channel]}', '')`);
  };
  const relisten = (): void => {
    setTimeout(() => listen().catch(relisten), 1_000).unref();
  };

  async function listen(): Promise<void> {
    if (closed || watchers.size === 0) return;
    const client = new (pgDriver().Client)({ connectionString: options.url, types: options.types });
    client.on('notification', (message) => {
      const channel = byName.get(message.channel);
      if (channel !== undefined) tell(channel);
    });
    client.on('error', () => {
      client.end().catch(() => {});
      if (listener !== client) return;
      listener = undefined;
      tellAll();
      relisten();
    });
    try {
      await client.connect();
      for (const name of Object.values(CHANNELS)) await client.query(`LISTEN ${name}`);
    } catch (error) {
      client.end().catch(() => {});
      throw error;
    }
    listener = client;
    tellAll();
  }

  return {
    changed(channel) {
      if (scheduled.has(channel)) return;
      scheduled.add(channel);
      setImmediate(() => {
        if (scheduled.delete(channel)) notify(channel).catch(() => {});
      });
    },
    async watch(channel, notify) {
      const set = watchers.get(channel) ?? new Set();
      set.add(notify);
      watchers.set(channel, set);
      if (listener !== undefined) return;
      connecting ??= listen().finally(() => {
        connecting = undefined;
      });
      await connecting;
    },
    async close() {
      closed = true;
      // A process that stops right after a write (the CLI) still tells the others, before the pool ends.
      const pending = [...scheduled];
      scheduled.clear();
      await Promise.all(pending.map((channel) => notify(channel).catch(() => {})));
      await listener?.end().catch(() => {});
    },
  };
}
