import { performance } from 'node:perf_hooks';
import type { AuditEntry } from '../audit/index.js';
import type { Clock } from '../clock/index.js';
import type { Logger } from '../log/index.js';
import type { AttemptResult, Sender } from './attempt.js';
import { storedEvent } from './events.js';
import { nextAttemptAt, RETRY_DELAYS_MS } from './schedule.js';
import { signedHeaders } from './signing.js';
import { maskedUrl, parseWebhookUrl } from './target.js';
import type { AttemptOutcome, DisabledReason, DueDelivery, WebhookRepository } from './types.js';

/** The actor of the audit entries the dispatcher makes: an endpoint it disabled. */
export const DISPATCHER_ACTOR = 'webhooks';

/** How long an endpoint may fail every attempt before its next failure disables it by default: five days. */
export const DISABLE_AFTER_MS = 5 * 86_400_000;

export interface DispatcherOptions {
  repository: WebhookRepository;
  sender: Sender;
  clock: Clock;
  logger: Logger;
  /** Attempts under way at once, at most: 32. */
  concurrency?: number;
  /** How often due deliveries are looked for when nothing wakes the dispatcher: every second. */
  pollMs?: number;
  /**
   * How long a claimed delivery is this instance's: a minute, six times an attempt's longest. Past it, an
   * instance that died mid-attempt loses the delivery to the next claim.
   */
  leaseMs?: number;
  retryDelaysMs?: readonly number[];
  disableAfterMs?: number;
  /**
   * How many answers the API of this instance has given so far. While that grows, the API is being served,
   * and attempts start at most `servingRate` a second, so that a backlog of deliveries does not take the CPU
   * that answers requests; when it stops growing, as fast as receivers answer.
   */
  answered?: () => number;
  /** Attempts a second while the API is being served: 200. */
  servingRate?: number;
}

/** How recently the API must have answered for the dispatcher to count it as being served. */
const SERVING_WINDOW_MS = 100;
/** Attempts claimed together while the API is being served: few claims, so few commits, beside its answers. */
const SERVING_BATCH = 20;

export interface Dispatcher {
  /** Looks for due deliveries every `pollMs` until `stop`. */
  start(): void;
  /** Looks at once: an event was just kept on this instance. */
  wake(): void;
  /** One round: claims what is due and room allows, and resolves once each attempt is recorded. */
  runOnce(): Promise<number>;
  /** Stops looking, and waits for the attempts under way to be recorded. */
  stop(): Promise<void>;
}

/**
 * Sends the outbox's deliveries: claims the due ones (storage's lease, so that across instances one attempt
 * of a delivery is under way at a time), signs and sends each, and keeps what came of it. At least once: a
 * receiver may get an event twice (an instance that died after sending and before recording), and tells a
 * repeat by its `webhook-id`. Deliveries of one endpoint may arrive in any order.
 */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { repository, sender, clock, logger } = options;
  const concurrency = options.concurrency ?? 32;
  const pollMs = options.pollMs ?? 1_000;
  const leaseMs = options.leaseMs ?? 60_000;
  const delays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  const disableAfterMs = options.disableAfterMs ?? DISABLE_AFTER_MS;
  const underWay = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let claiming: Promise<number> | undefined;
  let wokenWhileClaiming = false;
  let stopped = false;
  /** Whether the last claim failed: a store that is down is said once, and once again when it is back. */
  let failing = false;
  const pace = createPace(options.answered, options.servingRate ?? 200);
  const records = createRecordBatch(repository, concurrency);
  let paceTimer: NodeJS.Timeout | undefined;

  function outcomeOf(due: DueDelivery, result: AttemptResult, at: number): AttemptOutcome {
    const attempt = due.attempts + 1;
    const disable = (reason: DisabledReason) => ({
      reason,
      entry: disabledEntry(due, reason, at),
    });
    const record = (next: number | null) => ({
      deliveryId: due.id,
      attempt,
      at,
      status: result.status ?? null,
      latencyMs: result.latencyMs,
      excerpt: result.excerpt,
      error: result.error ?? null,
      nextAttemptAt: next,
    });
    if (result.outcome === 'delivered') {
      return { attempt: record(null), state: 'delivered', nextAttemptAt: null };
    }
    if (result.outcome === 'gone') {
      return { attempt: record(null), state: 'failed', nextAttemptAt: null, disable: disable('gone') };
    }
    const next = nextAttemptAt(due.tries + 1, at, Math.random, delays) ?? null;
    const failingTooLong = due.failingSince !== null && at - due.failingSince >= disableAfterMs;
    return {
      attempt: record(next),
      state: next === null ? 'failed' : 'pending',
      nextAttemptAt: next,
      ...(failingTooLong ? { disable: disable('failing') } : {}),
    };
  }

  function disabledEntry(due: DueDelivery, reason: DisabledReason, at: number): AuditEntry {
    const url = parseWebhookUrl(due.url);
    return {
      at: new Date(at).toISOString(),
      actor: DISPATCHER_ACTOR,
      action: 'webhook.disabled',
      target: due.endpointId,
      details: { reason, url: url instanceof URL ? maskedUrl(url) : '(not a URL)' },
    };
  }

  async function attemptOne(due: DueDelivery): Promise<void> {
    const url = parseWebhookUrl(due.url);
    const started = clock.now();
    const result: AttemptResult =
      url instanceof URL
        ? await sender.send(
            url,
            signedHeaders(due.eventId, due.payload, due.secrets, new Date(started)),
            due.payload,
          )
        : { outcome: 'failed', status: undefined, latencyMs: 0, excerpt: '', error: url };
    const outcome = outcomeOf(due, result, clock.now());
    await records.keep(outcome);
    if (outcome.disable !== undefined) {
      // Told to the operator's other endpoints (this one is disabled by now, so it takes none of it), which
      // may be third parties': its id and host only, never a URL whose path or query may be a capability.
      const data = {
        id: due.endpointId,
        reason: outcome.disable.reason,
        host: url instanceof URL ? url.host : null,
      };
      await repository.publish(storedEvent('webhook.endpoint_disabled', data, clock.now()));
      logger.warn(
        { endpoint: due.endpointId, reason: outcome.disable.reason },
        'a webhook endpoint was disabled',
      );
    }
  }

  function track(due: DueDelivery): Promise<void> {
    const running = attemptOne(due)
      .catch((error: unknown) => {
        // Its lease runs out, and the delivery is claimed again: at least once, never lost.
        logger.warn(
          { delivery: due.id, reason: (error as Error).message },
          'could not keep a webhook attempt; the delivery is tried again after its lease',
        );
      })
      .finally(() => {
        underWay.delete(running);
        // A full round may have left more due: look again as soon as there is room.
        if (!stopped && timer !== undefined) wake();
      });
    underWay.add(running);
    return running;
  }

  async function claim(): Promise<DueDelivery[]> {
    const room = Math.min(concurrency - underWay.size, pace.allowed());
    if (room <= 0 || stopped) {
      // Held back by the pace: look again once it allows the next batch.
      if (!stopped && underWay.size < concurrency && paceTimer === undefined) {
        paceTimer = setTimeout(() => {
          paceTimer = undefined;
          wake();
        }, pace.waitMs());
        paceTimer.unref();
      }
      return [];
    }
    try {
      const due = await repository.claimDue(clock.now(), room, leaseMs);
      pace.took(due.length);
      if (failing) {
        failing = false;
        logger.info('webhook deliveries are claimed again');
      }
      return due;
    } catch (error) {
      if (!failing) {
        failing = true;
        logger.warn({ reason: (error as Error).message }, 'could not claim webhook deliveries; trying again');
      }
      return [];
    }
  }

  /** One claim at a time on this instance; its attempts run on while the next claim looks for more. */
  function round(): Promise<number> {
    claiming ??= claim()
      .then((due) => {
        for (const delivery of due) track(delivery);
        return due.length;
      })
      .finally(() => {
        claiming = undefined;
        // Woken while claiming: what woke it may have committed after this claim looked.
        if (wokenWhileClaiming) {
          wokenWhileClaiming = false;
          wake();
        }
      });
    return claiming;
  }

  function wake(): void {
    if (stopped) return;
    if (claiming !== undefined) wokenWhileClaiming = true;
    else setImmediate(() => void round());
  }

  return {
    start() {
      stopped = false;
      timer = setInterval(() => void round(), pollMs);
      timer.unref();
    },
    wake,
    async runOnce() {
      const before = new Set(underWay);
      const claimed = await round();
      await Promise.all([...underWay].filter((running) => !before.has(running)));
      return claimed;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearTimeout(paceTimer);
      timer = undefined;
      await claiming;
      await Promise.all(underWay);
    },
  };
}

/**
 * The pace of attempts: unbounded while the API is idle; while it is being served (its answer count grew
 * within the last 100 ms), a token bucket of `rate` a second that holds at most a second's worth, spent a
 * batch (20, or `rate` if less) at a time.
 */
function createPace(answered: (() => number) | undefined, rate: number) {
  const batch = Math.min(SERVING_BATCH, rate);
  let lastCount = answered?.() ?? 0;
  let lastAnswerAt = Number.NEGATIVE_INFINITY;
  let tokens = rate;
  let refilledAt = performance.now();
  const serving = (now: number) => {
    if (answered === undefined) return false;
    const count = answered();
    if (count !== lastCount) {
      lastCount = count;
      lastAnswerAt = now;
    }
    return now - lastAnswerAt < SERVING_WINDOW_MS;
  };
  return {
    /** How many attempts may start now. */
    allowed(): number {
      const now = performance.now();
      tokens = Math.min(rate, tokens + ((now - refilledAt) * rate) / 1000);
      refilledAt = now;
      if (!serving(now)) return Number.POSITIVE_INFINITY;
      return tokens >= batch ? Math.floor(tokens) : 0;
    },
    took(count: number): void {
      tokens = Math.max(0, tokens - count);
    },
    /** Milliseconds until the next batch is allowed while serving. */
    waitMs(): number {
      return Math.max(1, Math.ceil(((batch - tokens) * 1000) / rate));
    },
  };
}

/** How long an attempt's record waits for others to share its transaction: one commit for many attempts. */
const RECORD_DELAY_MS = 20;

/**
 * Attempts recorded in batches: a batch is written once it holds `size` attempts or its first has waited
 * 20 ms, so that a drain pays one commit for many attempts. A record not yet written when the process dies
 * is lost with it; its delivery's lease runs out and it is sent again: at least once still holds.
 */
function createRecordBatch(repository: WebhookRepository, size: number) {
  let batch: { outcome: AttemptOutcome; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const written = batch;
    batch = [];
    repository.recordAttempts(written.map((entry) => entry.outcome)).then(
      () => {
        for (const entry of written) entry.resolve();
      },
      (error: unknown) => {
        for (const entry of written) entry.reject(error);
      },
    );
  };
  return {
    /** Resolves once the attempt's batch is committed. */
    keep(outcome: AttemptOutcome): Promise<void> {
      return new Promise((resolve, reject) => {
        batch.push({ outcome, resolve, reject });
        if (batch.length >= size) flush();
        else timer ??= setTimeout(flush, RECORD_DELAY_MS);
      });
    },
  };
}
