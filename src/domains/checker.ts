import { type Logger, warnUnlessOutage } from '../log/index.js';
import type { DomainManager } from './manager.js';

/** The re-checks running in one instance. */
export interface DomainChecks {
  /** Checks what is due now (the timer does this on its own); resolves with how many were checked. */
  runNow(): Promise<number>;
  /** Stops the timer and waits for a check in progress. */
  stop(): Promise<void>;
}

/** How often an instance looks for domains due for a check, and how many it takes at a time. */
const INTERVAL_MS = 15_000;
const BATCH = 20;

/**
 * Re-checks custom domains on their schedule (`nextCheckDelay`), in every instance: each claims the domains
 * due in storage, so a domain is checked by one instance whatever their number. One pass at a time; a
 * failed pass is logged and the next one tries again.
 */
export function startDomainChecks(deps: { manager: DomainManager; logger: Logger }): DomainChecks {
  let pass: Promise<number> | undefined;
  const runNow = (): Promise<number> => {
    pass ??= (async () => {
      let checked = 0;
      // A full batch means more may be due.
      for (let taken = BATCH; taken === BATCH; checked += taken) taken = await deps.manager.checkDue(BATCH);
      return checked;
    })().finally(() => {
      pass = undefined;
    });
    return pass;
  };
  const timer = setInterval(() => {
    runNow().catch((error: unknown) => warnUnlessOutage(deps.logger, error, 'custom domain checks failed'));
  }, INTERVAL_MS);
  timer.unref();
  return {
    runNow,
    async stop() {
      clearInterval(timer);
      await pass?.catch(() => {});
    },
  };
}
