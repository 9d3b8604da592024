import type { Clock } from '../clock/index.js';
import type { Logger } from '../log/index.js';
import { createSender } from './attempt.js';
import { createDispatcher, type Dispatcher } from './dispatcher.js';
import { createWebhookManager, type WebhookManager } from './manager.js';
import { type Pruning, startPruning } from './retention.js';
import type { WebhookOptions, WebhookRepository } from './types.js';

/** Webhooks as a server runs them: the endpoints' manager, and the dispatcher sending the outbox. */
export interface Webhooks {
  manager: WebhookManager;
  dispatcher: Dispatcher;
  /** Deletes deliveries and events past their retention (hourly on its own). */
  pruning: Pruning;
  /** Stops sending, waits for the attempts under way to be kept, and closes their connections. */
  close(): Promise<void>;
}

/** Starts the dispatcher of this instance; every instance of a fleet runs one, sharing the outbox. */
export function startWebhooks(deps: {
  repository: WebhookRepository;
  options: WebhookOptions;
  clock: Clock;
  logger: Logger;
  /** The API's answers so far: while they grow, deliveries keep to a pace (the dispatcher's `answered`). */
  answered?: () => number;
}): Webhooks {
  const { repository, options, clock, logger, answered } = deps;
  const sender = createSender({ policy: options.policy });
  const dispatcher = createDispatcher({
    repository,
    sender,
    clock,
    logger,
    ...(options.retryDelaysMs === undefined ? {} : { retryDelaysMs: options.retryDelaysMs }),
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    ...(options.disableAfterMs === undefined ? {} : { disableAfterMs: options.disableAfterMs }),
    ...(answered === undefined ? {} : { answered }),
  });
  dispatcher.start();
  const manager = createWebhookManager({
    repository,
    clock,
    policy: options.policy,
    published: () => dispatcher.wake(),
  });
  const pruning = startPruning({
    repository,
    clock,
    logger,
    ...(options.retentionMs === undefined ? {} : { retentionMs: options.retentionMs }),
  });
  return {
    manager,
    dispatcher,
    pruning,
    async close() {
      await pruning.stop();
      await dispatcher.stop();
      sender.close();
    },
  };
}
