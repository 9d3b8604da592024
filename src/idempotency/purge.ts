import type { Clock } from '../clock/index.js';
import { type Logger, warnUnlessOutage } from '../log/index.js';
import type { IdempotencyRepository } from '../storage/index.js';
import { IDEMPOTENCY_TTL_MS } from './creates.js';

/**
 * Deletes stored answers older than 24 h at start and then every `everyMs`, so the table stays bounded by
 * a day of creates. Every instance may purge; the deletes are idempotent. Returns a function that stops it.
 */
export function startPurging(deps: {
  idempotency: IdempotencyRepository;
  clock: Clock;
  logger: Logger;
  everyMs?: number;
}): () => void {
  const { idempotency, clock, logger } = deps;
  const purge = () => {
    idempotency.purge(clock.now() - IDEMPOTENCY_TTL_MS).then(
      (count) => {
        if (count > 0) logger.info({ count }, 'purged expired idempotency records');
      },
      (error: unknown) => warnUnlessOutage(logger, error, 'purging idempotency records failed'),
    );
  };
  purge();
  const timer = setInterval(purge, deps.everyMs ?? 10 * 60 * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
