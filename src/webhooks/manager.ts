import { randomBytes } from 'node:crypto';
import type { AuditAction, AuditEntry } from '../audit/index.js';
import type { Clock } from '../clock/index.js';
import {
  type NewWebhook,
  WEBHOOK_DESCRIPTION_MAX,
  type Webhook,
  type WebhookChange,
  type WebhookDelivery,
  type WebhookDeliveryDetail,
  type WebhookTestData,
  type WebhookTestSent,
} from '../contract/index.js';
import { type EventType, isEventType, storedEvent } from './events.js';
import { newSigningSecret } from './signing.js';
import {
  checkTarget,
  displayUrl,
  MASK,
  maskedUrl,
  parseWebhookUrl,
  type TargetPolicy,
  TargetRefused,
} from './target.js';
import type {
  AttemptRecord,
  DeliveryRecord,
  DeliveryState,
  EndpointChange,
  WebhookEndpoint,
  WebhookRepository,
} from './types.js';

/** How long the secret before a rotation keeps signing beside the new one: a day, to deploy the new one. */
export const ROTATION_OVERLAP_MS = 86_400_000;

/** Why a change to an endpoint is refused: a sentence for the Error body's message. */
export class WebhookInputError extends Error {
  override name = 'WebhookInputError';
}

// The views and inputs are the admin API's (src/contract/webhooks.ts), by the names the CLI and handlers know.

/** An endpoint as the admin API shows it (`Webhook`): its URL without credentials, never its secret. */
export type EndpointView = Webhook;
/** One event to one endpoint, as the delivery log shows it (`WebhookDelivery`). */
export type DeliveryView = WebhookDelivery;
/** One attempt as the delivery log shows it. */
export type AttemptView = WebhookDeliveryDetail['log'][number];
/** What an endpoint is made with, as the admin API and the CLI take it (`NewWebhook`). */
export type EndpointInput = NewWebhook;
/** What an update changes (`WebhookChange`); what it leaves out stays. */
export type EndpointUpdate = WebhookChange;

const iso = (ms: number) => new Date(ms).toISOString();

export function endpointView(endpoint: WebhookEndpoint, now: number): EndpointView {
  const url = parseWebhookUrl(endpoint.url);
  const overlapping = endpoint.previousSecretUntil !== null && endpoint.previousSecretUntil > now;
  return {
    id: endpoint.id,
    url: url instanceof URL ? displayUrl(url) : endpoint.url,
    description: endpoint.description,
    events: endpoint.events,
    enabled: endpoint.enabled,
    disabledReason: endpoint.disabledReason,
    createdAt: iso(endpoint.createdAt),
    updatedAt: iso(endpoint.updatedAt),
    failingSince: endpoint.failingSince === null ? null : iso(endpoint.failingSince),
    previousSecretUntil: overlapping ? iso(endpoint.previousSecretUntil as number) : null,
  };
}

export const deliveryView = (delivery: DeliveryRecord): DeliveryView => ({
  id: delivery.id,
  eventId: delivery.eventId,
  eventType: delivery.eventType,
  state: delivery.state,
  attempts: delivery.attempts,
  lastStatus: delivery.lastStatus,
  nextAttemptAt: delivery.nextAttemptAt === null ? null : iso(delivery.nextAttemptAt),
  createdAt: iso(delivery.createdAt),
  updatedAt: iso(delivery.updatedAt),
});

const attemptView = (attempt: AttemptRecord): AttemptView => ({
  attempt: attempt.attempt,
  at: iso(attempt.at),
  status: attempt.status,
  latencyMs: attempt.latencyMs,
  response: attempt.excerpt,
  error: attempt.error,
  nextAttemptAt: attempt.nextAttemptAt === null ? null : iso(attempt.nextAttemptAt),
});

export interface WebhookManager {
  /** Makes an endpoint; its secret is in the answer, and nowhere ever after. */
  create(input: EndpointInput, actor: string): Promise<{ endpoint: EndpointView; secret: string }>;
  list(): Promise<EndpointView[]>;
  get(id: string): Promise<EndpointView | undefined>;
  update(id: string, change: EndpointUpdate, actor: string): Promise<EndpointView | undefined>;
  delete(id: string, actor: string): Promise<boolean>;
  /** A new secret; the one before signs beside it for {@link ROTATION_OVERLAP_MS}. */
  rotateSecret(id: string, actor: string): Promise<{ endpoint: EndpointView; secret: string } | undefined>;
  /** Sends the endpoint a test event of `type` (its first event type by default); undefined if there is none. */
  test(id: string, type: string | undefined): Promise<WebhookTestSent | undefined>;
  /** The endpoint's deliveries, newest first; undefined if there is no such endpoint. */
  deliveries(
    id: string,
    page: { state?: DeliveryState; since?: number; before?: number; limit: number },
  ): Promise<DeliveryView[] | undefined>;
  /** One delivery of the endpoint, with every attempt of it in `log`. */
  delivery(id: string, deliveryId: number): Promise<WebhookDeliveryDetail | undefined>;
  /** Sends one delivery again with the same event id: the delivery, due now; `under_way` while an attempt of it is. */
  replay(id: string, deliveryId: number): Promise<DeliveryView | 'under_way' | 'not_found'>;
  /** Sends again every failed delivery of the endpoint made since `since`; how many. */
  replayFailed(id: string, since: number): Promise<number | undefined>;
}

/**
 * The endpoints' rules, shared by the admin API and the CLI: a URL that is absolute http(s) and whose host
 * is public (unless the policy allows private targets), event types of the catalogue, one at least.
 */
export function createWebhookManager(deps: {
  repository: WebhookRepository;
  clock: Clock;
  policy: TargetPolicy;
  /** Told when an event is kept on this instance, so that it goes at once. */
  published?: () => void;
}): WebhookManager {
  const { repository, clock, policy, published } = deps;
  const now = () => clock.now();
  const entry = (
    action: AuditAction,
    target: string,
    details: Record<string, unknown>,
    actor: string,
  ): AuditEntry => ({
    at: iso(now()),
    actor,
    action,
    target,
    details,
  });

  async function checkedUrl(text: string): Promise<URL> {
    const url = parseWebhookUrl(text);
    if (typeof url === 'string') throw new WebhookInputError(`url: ${url}`);
    // The URL as shown, sent back changed: its credentials would become the mask itself.
    if (url.username === MASK || url.password === MASK) {
      throw new WebhookInputError(
        `url: its user name and password show as ${MASK}; give them again in full, or leave url out to keep the URL as it is`,
      );
    }
    try {
      await checkTarget(url, policy);
    } catch (error) {
      if (error instanceof TargetRefused) throw new WebhookInputError(`url: ${error.message}`);
      throw error;
    }
    return url;
  }

  function checkedEvents(events: readonly string[]): EventType[] {
    if (events.length === 0) throw new WebhookInputError('events: name at least one event type');
    const unknown = events.filter((event) => !isEventType(event));
    if (unknown.length > 0) {
      throw new WebhookInputError(
        `events: ${unknown.map((event) => JSON.stringify(event.slice(0, 60))).join(', ')} is not an event type (see the catalogue in the guide)`,
      );
    }
    return [...new Set(events as EventType[])].sort();
  }

  function checkedDescription(description: string): string {
    if (description.length > WEBHOOK_DESCRIPTION_MAX) {
      throw new WebhookInputError(`description: longer than ${WEBHOOK_DESCRIPTION_MAX} characters`);
    }
    return description;
  }

  return {
    async create(input, actor) {
      const url = await checkedUrl(input.url);
      const events = checkedEvents(input.events);
      const id = `we_${randomBytes(10).toString('hex')}`;
      const secret = newSigningSecret();
      const made = await repository.createEndpoint(
        {
          id,
          url: url.href,
          description: checkedDescription(input.description ?? ''),
          events,
          secret,
          createdAt: now(),
        },
        entry('webhook.created', id, { url: maskedUrl(url), events }, actor),
      );
      return { endpoint: endpointView(made, now()), secret };
    },
    async list() {
      const at = now();
      return (await repository.listEndpoints()).map((endpoint) => endpointView(endpoint, at));
    },
    async get(id) {
      const endpoint = await repository.getEndpoint(id);
      return endpoint === undefined ? undefined : endpointView(endpoint, now());
    },
    async update(id, update, actor) {
      const change: EndpointChange = { at: now() };
      const details: Record<string, unknown> = {};
      if (update.url !== undefined) {
        const url = await checkedUrl(update.url);
        change.url = url.href;
        details.url = maskedUrl(url);
      }
      if (update.events !== undefined) details.events = change.events = checkedEvents(update.events);
      if (update.description !== undefined) {
        details.description = change.description = checkedDescription(update.description);
      }
      if (update.enabled !== undefined) {
        details.enabled = change.enabled = update.enabled;
        change.disabledReason = update.enabled ? null : 'manual';
      }
      const changed = await repository.updateEndpoint(
        id,
        change,
        entry('webhook.updated', id, details, actor),
      );
      return changed === undefined ? undefined : endpointView(changed, now());
    },
    delete(id, actor) {
      return repository.deleteEndpoint(id, entry('webhook.deleted', id, {}, actor));
    },
    async rotateSecret(id, actor) {
      const current = await repository.getEndpoint(id);
      if (current === undefined) return undefined;
      const secret = newSigningSecret();
      const until = now() + ROTATION_OVERLAP_MS;
      const rotated = await repository.updateEndpoint(
        id,
        { secret, previousSecret: current.secret, previousSecretUntil: until, at: now() },
        entry('webhook.secret_rotated', id, { previousSecretUntil: iso(until) }, actor),
      );
      return rotated === undefined ? undefined : { endpoint: endpointView(rotated, now()), secret };
    },
    async test(id, type) {
      const endpoint = await repository.getEndpoint(id);
      if (endpoint === undefined) return undefined;
      if (!endpoint.enabled) {
        throw new WebhookInputError('the endpoint is disabled: enable it first, then send a test event');
      }
      const chosen = type ?? endpoint.events[0] ?? 'pet.created';
      if (!isEventType(chosen))
        throw new WebhookInputError(`type: ${JSON.stringify(chosen.slice(0, 60))} is not an event type`);
      // A test event says so in its data: a receiver acts on none of it.
      const data: WebhookTestData = { test: true, endpoint: id };
      const event = storedEvent(chosen, data, now());
      await repository.publish(event, id);
      published?.();
      return { eventId: event.id, type: chosen };
    },
    async deliveries(id, page) {
      if ((await repository.getEndpoint(id)) === undefined) return undefined;
      return (await repository.listDeliveries(id, page)).map(deliveryView);
    },
    async delivery(id, deliveryId) {
      const delivery = await repository.getDelivery(deliveryId);
      if (delivery === undefined || delivery.endpointId !== id) return undefined;
      const attempts = await repository.listAttempts(deliveryId);
      return { ...deliveryView(delivery), log: attempts.map(attemptView) };
    },
    async replay(id, deliveryId) {
      const delivery = await repository.getDelivery(deliveryId);
      if (delivery === undefined || delivery.endpointId !== id) return 'not_found';
      const at = now();
      if ((await repository.replay({ deliveryId }, at)) === 0) return 'under_way';
      published?.();
      // As the replay left it: due now on a fresh schedule, or parked until its endpoint is enabled.
      const replayed = await repository.getDelivery(deliveryId);
      return replayed === undefined ? 'not_found' : deliveryView(replayed);
    },
    async replayFailed(id, since) {
      if ((await repository.getEndpoint(id)) === undefined) return undefined;
      const replayed = await repository.replay({ endpointId: id, failedSince: since }, now());
      if (replayed > 0) published?.();
      return replayed;
    },
  };
}
