import { type Logger, warnUnlessOutage } from '../log/index.js';

/** How often a server checks whether credentials changed (DESIGN.md: effective within 5 s). */
export const KEY_REFRESH_MS = 1_000;

/**
 * How many rereads a second credentials unknown to a server may cause, in all (a token bucket this size).
 * A credential is usable the moment the call that created it returns, on every server: one that is not
 * known yet makes the server look again before it refuses. Only well-formed credentials with a valid
 * checksum get here; the budget keeps a flood of made-up ones down to this many cheap version reads.
 */
export const MISS_RECHECKS_PER_SECOND = 20;

/** How many credentials not found are remembered until the next reread. */
const MAX_MISSED = 10_000;

/** Credentials held in memory and reread from storage when their stored version moves. */
export interface CredentialReloader {
  /** Loads them, then polls their version every `pollMs` until `stop`. */
  start(): Promise<void>;
  /**
   * Rereads them if their version moved, in a read that starts after any in progress: every change made
   * before the call is in what it resolves to.
   */
  refresh(): Promise<void>;
  /**
   * For a credential the server does not know: a `refresh`, or undefined when it is no use: the same
   * credential was looked for since the last reread, or the second's budget of such rereads is spent
   * (`MISS_RECHECKS_PER_SECOND`). Then it is refused as unknown.
   */
  recheck(credential: string): Promise<void> | undefined;
  stop(): void;
}

/**
 * Keeps credentials current: `reload` is called whenever the stored `version` moved, on a poll, on `refresh`,
 * and on `recheck` of an unknown credential. It resolves with false when part of it must be tried again:
 * then the next poll rereads, though the version did not move.
 */
export function createCredentialReloader(deps: {
  version: () => Promise<number>;
  reload: () => Promise<boolean>;
  logger: Logger;
  /** What they are, for the log line of a failed poll (`API keys`). */
  what: string;
  pollMs?: number;
  /** Milliseconds, for the budget of rechecks; `performance.now` by default. */
  now?: () => number;
}): CredentialReloader {
  const { logger } = deps;
  const now = deps.now ?? (() => performance.now());
  let loaded = -1;
  let timer: NodeJS.Timeout | undefined;
  /** The reread in progress, and the next one, which every call made meanwhile shares. */
  let last: Promise<void> = Promise.resolve();
  let next: Promise<void> | undefined;
  let budget = MISS_RECHECKS_PER_SECOND;
  let filledAt = now();
  /** Credentials looked for since the last reread and not found: a revoked key sent again costs nothing. */
  let missed = new Set<string>();

  async function reread(): Promise<void> {
    const version = await deps.version();
    if (version === loaded) return;
    missed = new Set();
    loaded = (await deps.reload()) ? version : -1;
  }

  function refresh(): Promise<void> {
    next ??= last.then(() => {
      next = undefined;
      return reread();
    });
    last = next.catch(() => {});
    return next;
  }

  return {
    async start() {
      await refresh();
      timer = setInterval(() => {
        refresh().catch((error: unknown) =>
          warnUnlessOutage(logger, error, `could not refresh ${deps.what}`),
        );
      }, deps.pollMs ?? KEY_REFRESH_MS);
      timer.unref();
    },
    refresh,
    recheck(credential) {
      if (missed.has(credential)) return undefined;
      const at = now();
      budget = Math.min(
        MISS_RECHECKS_PER_SECOND,
        budget + ((at - filledAt) / 1000) * MISS_RECHECKS_PER_SECOND,
      );
      filledAt = at;
      if (budget < 1) return undefined;
      budget -= 1;
      return refresh().then(() => {
        // Bounded: made-up credentials, each with a valid checksum, cannot grow it without end.
        if (missed.size >= MAX_MISSED) missed.clear();
        missed.add(credential);
      });
    },
    stop() {
      clearInterval(timer);
    },
  };
}
