import type { AuditEntry } from '../audit/index.js';
import type { DeliveryState, DisabledReason, EventType } from '../contract/index.js';
import type { TargetPolicy } from './target.js';

/** The contract's: why an endpoint takes no deliveries, and where a delivery stands. */
export type { DeliveryState, DisabledReason };

/** An endpoint as stored. Times are milliseconds since the epoch, as the dispatcher compares them. */
export interface WebhookEndpoint {
  id: string;
  /** The URL as given, credentials included: sent to, never shown (target.ts's `displayUrl`). */
  url: string;
  description: string;
  events: EventType[];
  enabled: boolean;
  disabledReason: DisabledReason | null;
  /** The signing secret (`whsec_…`). */
  secret: string;
  /** The secret before the last rotation, still signing beside the new one until `previousSecretUntil`. */
  previousSecret: string | null;
  previousSecretUntil: number | null;
  createdAt: number;
  updatedAt: number;
  /** Since when every attempt failed; null after a success. Past the setting's days the endpoint is disabled. */
  failingSince: number | null;
}

export type NewEndpoint = Pick<
  WebhookEndpoint,
  'id' | 'url' | 'description' | 'events' | 'secret' | 'createdAt'
>;

/** What an update changes; what it leaves out stays. */
export interface EndpointChange {
  url?: string;
  description?: string;
  events?: EventType[];
  enabled?: boolean;
  disabledReason?: DisabledReason | null;
  secret?: string;
  previousSecret?: string | null;
  previousSecretUntil?: number | null;
  at: number;
}

/**
 * An audit entry that tells of its change: the stores keep `event` with the entry, in the change's
 * transaction (the outbox), for the endpoints that subscribe to its type. Every repository that appends
 * entries takes one where it takes an `AuditEntry`; `event` is not part of the record.
 */
export type TellingEntry = AuditEntry & { event?: StoredEvent };

/** An event as the outbox keeps it: `payload` is the body every delivery of it sends, as JSON. */
export interface StoredEvent {
  id: string;
  type: EventType;
  createdAt: number;
  payload: string;
}

/**
 * The event a change tells of, as the change's unit of work takes it: `make` runs only once the change is made
 * and, where the store can tell first, only when an endpoint subscribes to `type`.
 */
export interface PendingEvent<T> {
  type: EventType;
  make(changed: T): StoredEvent;
  /**
   * Called in the transaction once the event is kept for at least one endpoint: the caller wakes the
   * dispatcher when the change has committed.
   */
  queued?(): void;
}

/** One event to one endpoint, with its attempts so far. */
export interface DeliveryRecord {
  id: number;
  eventId: string;
  eventType: EventType;
  endpointId: string;
  state: DeliveryState;
  /** Attempts made in all, replays included: the number of the last one. */
  attempts: number;
  /** Attempts since the delivery was made or last replayed: where it stands in the retry schedule. */
  tries: number;
  /** When the next attempt goes; null once delivered or given up. */
  nextAttemptAt: number | null;
  createdAt: number;
  updatedAt: number;
  /** The status code of the last attempt's answer, if one came. */
  lastStatus: number | null;
}

/** A delivery claimed for one attempt, with what the attempt needs. */
export interface DueDelivery {
  id: number;
  eventId: string;
  endpointId: string;
  attempts: number;
  tries: number;
  url: string;
  /** The secrets that sign it: the current one, and the previous one during a rotation's overlap. */
  secrets: string[];
  payload: string;
  /** Since when its endpoint has failed every attempt (null after a success). */
  failingSince: number | null;
}

/** One attempt as the delivery log shows it. */
export interface AttemptRecord {
  deliveryId: number;
  attempt: number;
  at: number;
  status: number | null;
  latencyMs: number;
  /** The answer's first KiB. */
  excerpt: string;
  error: string | null;
  /** When the attempt after it was due, if one was. */
  nextAttemptAt: number | null;
}

/** What an attempt leaves the delivery as, and what it does to its endpoint. */
export interface AttemptOutcome {
  attempt: AttemptRecord;
  state: DeliveryState;
  nextAttemptAt: number | null;
  /** Disables the endpoint (a 410, or failing past the setting's days), audited as `entry`. */
  disable?: { reason: DisabledReason; entry: AuditEntry };
}

/**
 * The webhooks' tables: endpoints, and the outbox of events with their deliveries and attempts. Writes that an
 * operator makes are audited in their own transaction.
 */
export interface WebhookRepository {
  createEndpoint(endpoint: NewEndpoint, entry: AuditEntry): Promise<WebhookEndpoint>;
  listEndpoints(): Promise<WebhookEndpoint[]>;
  getEndpoint(id: string): Promise<WebhookEndpoint | undefined>;
  /** The endpoint as changed, or undefined if there is none. */
  updateEndpoint(id: string, change: EndpointChange, entry: AuditEntry): Promise<WebhookEndpoint | undefined>;
  /** Deletes the endpoint with its deliveries and their attempts; false if there was none. */
  deleteEndpoint(id: string, entry: AuditEntry): Promise<boolean>;
  /**
   * Keeps `event` and a delivery of it, due at once, for every enabled endpoint subscribed to its type, or for
   * `endpointId` alone (a test event) whatever it subscribes to. Resolves with the deliveries made; an event
   * that no endpoint takes is not kept.
   */
  publish(event: StoredEvent, endpointId?: string): Promise<number>;
  /**
   * Claims up to `limit` deliveries due at `now` for one attempt each, until `now + leaseMs`: another
   * instance claims none of them meanwhile, and one whose instance died is claimed again after the lease.
   */
  claimDue(now: number, limit: number, leaseMs: number): Promise<DueDelivery[]>;
  /**
   * Keeps attempts, each with what it leaves its delivery (and endpoint) as, and ends their deliveries'
   * claims, in one transaction.
   */
  recordAttempts(outcomes: readonly AttemptOutcome[]): Promise<void>;
  /** An endpoint's deliveries, newest first, before the delivery `before` if given. */
  listDeliveries(
    endpointId: string,
    page: { state?: DeliveryState; since?: number; before?: number; limit: number },
  ): Promise<DeliveryRecord[]>;
  getDelivery(deliveryId: number): Promise<DeliveryRecord | undefined>;
  listAttempts(deliveryId: number): Promise<AttemptRecord[]>;
  /**
   * Makes deliveries due again at `now` with a fresh retry schedule and the same event id: one, or every
   * failed one of an endpoint made since a time. Resolves with how many.
   */
  replay(
    target: { deliveryId: number } | { endpointId: string; failedSince: number },
    now: number,
  ): Promise<number>;
  /**
   * Deletes up to `limit` deliveries that are delivered or failed and unchanged since `before`, with their
   * attempts, then up to `limit` events older than `before` that no delivery is left of. A pending
   * delivery is never deleted, however old. Resolves with how many of each.
   */
  prune(before: number, limit: number): Promise<{ deliveries: number; events: number }>;
}

/**
 * The webhooks' settings (`WEBHOOKS_ALLOW_PRIVATE`, `DNS_RESOLVER`, and for tests `WEBHOOKS_RETRY_DELAYS_MS` and
 * `WEBHOOKS_LEASE_MS`).
 */
export interface WebhookOptions {
  policy: TargetPolicy;
  /** The delays between attempts; the documented schedule (schedule.ts) unless a test shortens it. */
  retryDelaysMs?: readonly number[];
  /** How long a claimed delivery is this instance's; the dispatcher's minute unless a test shortens it. */
  leaseMs?: number;
  /** How long an endpoint fails every attempt before it is disabled (`WEBHOOKS_DISABLE_AFTER_DAYS`). */
  disableAfterMs?: number;
  /** How long a delivered or failed delivery is kept after its last attempt (`WEBHOOKS_RETENTION_DAYS`). */
  retentionMs?: number;
}
