import type { Clock } from '../clock/index.js';
import { type Logger, warnUnlessOutage } from '../log/index.js';
import type { WebhookRepository } from './types.js';

/** How long a delivered or failed delivery is kept by default: a month, to look into and replay. */
export const DEFAULT_RETENTION_MS = 30 * 86_400_000;

/** Rows a prune deletes in one transaction: short enough never to hold up the writes beside it. */
const PRUNE_BATCH = 1000;

/** How often an instance prunes. Every instance does; they share the work. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export interface Pruning {
  /** Prunes now, batch after batch until nothing is left to go; how many deliveries and events went. */
  prune(): Promise<{ deliveries: number; events: number }>;
  stop(): Promise<void>;
}

/**
 * Keeps the outbox bounded: deliveries delivered or failed longer ago than `retentionMs` go with their
 * attempts, and then their events. Pending deliveries stay however old (a disabled endpoint's wait for it).
 * Once at start and every hour.
 */
export function startPruning(deps: {
  repository: WebhookRepository;
  clock: Clock;
  logger: Logger;
  retentionMs?: number;
}): Pruning {
  const { repository, clock, logger } = deps;
  const retentionMs = deps.retentionMs ?? DEFAULT_RETENTION_MS;
  let running: Promise<{ deliveries: number; events: number }> | undefined;
  let stopped = false;

  async function pruneAll() {
    const before = clock.now() - retentionMs;
    const pruned = { deliveries: 0, events: 0 };
    for (;;) {
      const batch = await repository.prune(before, PRUNE_BATCH);
      pruned.deliveries += batch.deliveries;
      pruned.events += batch.events;
      if (stopped || (batch.deliveries < PRUNE_BATCH && batch.events < PRUNE_BATCH)) return pruned;
    }
  }

  function prune() {
    running ??= pruneAll().finally(() => {
      running = undefined;
    });
    return running;
  }

  const tick = () => {
    prune().then(
      (pruned) => {
        if (pruned.deliveries + pruned.events > 0)
          logger.info(pruned, 'pruned old webhook deliveries and events');
      },
      (error: unknown) => warnUnlessOutage(logger, error, 'pruning webhook deliveries failed'),
    );
  };
  tick();
  const timer = setInterval(tick, PRUNE_EVERY_MS);
  timer.unref();
  return {
    prune,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
