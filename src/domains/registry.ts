import { type Logger, warnUnlessOutage } from '../log/index.js';
import { DOMAIN_STATES, type DomainRecord, type DomainRepository, type DomainState } from './types.js';

/** The stored domains as a request meets them: looked up in memory, never in storage. */
export interface DomainIndex {
  get(name: string): DomainRecord | undefined;
  /** How many domains there are; with none, no Host rule applies. */
  readonly size: number;
  /** Domains per state, for the metrics. */
  counts(): Record<DomainState, number>;
}

/** Keeps the domains of storage in memory, current within a poll of their version or at once on NOTIFY. */
export interface DomainRegistry {
  current(): DomainIndex;
  /** Loads the domains, then follows their changes. */
  start(): Promise<void>;
  /** Rereads them now if their version moved; resolves once the index is current. */
  refresh(): Promise<void>;
  stop(): void;
}

function indexOf(records: readonly DomainRecord[]): DomainIndex {
  const byName = new Map(records.map((record) => [record.name, record]));
  return {
    get: (name) => byName.get(name),
    size: byName.size,
    counts() {
      const counts = Object.fromEntries(DOMAIN_STATES.map((state) => [state, 0])) as Record<
        DomainState,
        number
      >;
      for (const record of byName.values()) counts[record.state] += 1;
      return counts;
    },
  };
}

/** How often the domains' version is read: a change made by the CLI (another process) is served within it. */
const POLL_MS = 1_000;

/**
 * The domains this instance serves, from storage: reread when their version moves (read every second), and
 * at once when `watch` says another instance changed them (PostgreSQL NOTIFY). A failed read keeps the last
 * index and is logged; the next poll tries again.
 */
export function createDomainRegistry(deps: {
  domains: DomainRepository;
  watch: (notify: () => void) => Promise<void>;
  logger: Logger;
}): DomainRegistry {
  const { domains, logger } = deps;
  let index = indexOf([]);
  let loaded = -1;
  let timer: NodeJS.Timeout | undefined;
  /** The reread in progress, and the next one, which every call made meanwhile shares. */
  let last: Promise<void> = Promise.resolve();
  let next: Promise<void> | undefined;

  async function reload(): Promise<void> {
    const version = await domains.version();
    if (version === loaded) return;
    index = indexOf(await domains.list());
    loaded = version;
  }

  /** Rereads after the reread in progress, if any: a change made before the call is in what it resolves to. */
  function refresh(): Promise<void> {
    next ??= last.then(() => {
      next = undefined;
      return reload();
    });
    last = next.catch(() => {});
    return next;
  }
  const poll = () => {
    refresh().catch((error: unknown) =>
      warnUnlessOutage(logger, error, 'could not reread the custom domains'),
    );
  };

  return {
    current: () => index,
    async start() {
      await refresh();
      timer = setInterval(poll, POLL_MS);
      timer.unref();
      await deps.watch(poll);
    },
    refresh,
    stop() {
      clearInterval(timer);
    },
  };
}
