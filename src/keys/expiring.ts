import { hash } from 'node:crypto';
import type { Clock } from '../clock/index.js';
import type { ApiKey } from '../contract/index.js';
import { type Logger, warnUnlessOutage } from '../log/index.js';
import { type StoredEvent, storedEvent } from '../webhooks/index.js';
import type { ApiKeyRecord, ApiKeyRepository } from './record.js';

/** The notices `key.expiring` gives before a key's expiry: a week, then a day. */
const EXPIRY_NOTICES = [
  { within: '1d', ms: 86_400_000 },
  { within: '7d', ms: 7 * 86_400_000 },
] as const;

/** How often an instance looks for keys that near their expiry. */
const INTERVAL_MS = 10 * 60_000;

/** The notices running in one instance. */
export interface ExpiryNotices {
  /** Looks now (the timer does this on its own); resolves with how many notices were kept for endpoints. */
  runNow(): Promise<number>;
  /** Stops the timer and waits for a look in progress. */
  stop(): Promise<void>;
}

/**
 * The notice a key is due at `now`, if any: the nearest window its expiry is within. A key revoked, already
 * expired, or rotated (its end is the grace period its operator chose) gets none.
 */
function dueNotice(record: ApiKeyRecord, now: number): (typeof EXPIRY_NOTICES)[number] | undefined {
  if (record.expiresAt === null || record.revokedAt !== null || record.replacedBy !== null) return undefined;
  const left = Date.parse(record.expiresAt) - now;
  if (left <= 0) return undefined;
  return EXPIRY_NOTICES.find((notice) => left <= notice.ms);
}

/**
 * Tells `key.expiring` a week and a day before each key's expiry, from every instance: each notice's event
 * id is made from the key, its expiry and the window, and the outbox keeps an id once, so a notice is sent
 * once however many instances look, and again only if the expiry changes.
 */
export function startExpiryNotices(deps: {
  apiKeys: Pick<ApiKeyRepository, 'list'>;
  publish: (event: StoredEvent) => Promise<number>;
  view: (record: ApiKeyRecord) => ApiKey;
  clock: Clock;
  logger: Logger;
}): ExpiryNotices {
  const { apiKeys, publish, view, clock, logger } = deps;
  let pass: Promise<number> | undefined;
  const runNow = (): Promise<number> => {
    pass ??= (async () => {
      let kept = 0;
      const now = clock.now();
      for (const record of await apiKeys.list()) {
        const notice = dueNotice(record, now);
        if (notice === undefined) continue;
        const id = `evt_${hash('sha256', `key.expiring\n${record.id}\n${record.expiresAt}\n${notice.within}`).slice(0, 32)}`;
        const data = { ...view(record), expiresWithin: notice.within };
        kept += await publish(storedEvent('key.expiring', data, now, id));
      }
      return kept;
    })().finally(() => {
      pass = undefined;
    });
    return pass;
  };
  const look = () => {
    runNow().catch((error: unknown) => warnUnlessOutage(logger, error, 'could not look for expiring keys'));
  };
  const timer = setInterval(look, INTERVAL_MS);
  timer.unref();
  look();
  return {
    runNow,
    async stop() {
      clearInterval(timer);
      await pass?.catch(() => {});
    },
  };
}
