import type {
  AttemptRecord,
  DeliveryRecord,
  DeliveryState,
  DisabledReason,
  DueDelivery,
  EventType,
  WebhookEndpoint,
} from '../webhooks/index.js';

/** A `webhook_endpoints` row joined with its subscriptions (`events`, comma-separated), as both stores read it. */
export interface EndpointRow {
  id: string;
  url: string;
  description: string;
  enabled: number;
  disabled_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: number | null;
  created_at: number;
  updated_at: number;
  failing_since: number | null;
  events: string | null;
}

export const toEndpoint = (row: EndpointRow): WebhookEndpoint => ({
  id: row.id,
  url: row.url,
  description: row.description,
  events: row.events === null || row.events === '' ? [] : (row.events.split(',').sort() as EventType[]),
  enabled: row.enabled === 1,
  disabledReason: row.disabled_reason as DisabledReason | null,
  secret: row.secret,
  previousSecret: row.previous_secret,
  previousSecretUntil: row.previous_secret_until,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  failingSince: row.failing_since,
});

/** A `webhook_deliveries` row with its event's type. */
export interface DeliveryRow {
  id: number;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  state: string;
  attempts: number;
  tries: number;
  next_attempt_at: number | null;
  last_status: number | null;
  created_at: number;
  updated_at: number;
}

export const toDelivery = (row: DeliveryRow): DeliveryRecord => ({
  id: row.id,
  eventId: row.event_id,
  eventType: row.event_type as EventType,
  endpointId: row.endpoint_id,
  state: row.state as DeliveryState,
  attempts: row.attempts,
  tries: row.tries,
  nextAttemptAt: row.next_attempt_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  lastStatus: row.last_status,
});

export interface AttemptRow {
  delivery_id: number;
  attempt: number;
  at: number;
  status: number | null;
  latency_ms: number;
  excerpt: string;
  error: string | null;
  next_attempt_at: number | null;
}

export const toAttempt = (row: AttemptRow): AttemptRecord => ({
  deliveryId: row.delivery_id,
  attempt: row.attempt,
  at: row.at,
  status: row.status,
  latencyMs: row.latency_ms,
  excerpt: row.excerpt,
  error: row.error,
  nextAttemptAt: row.next_attempt_at,
});

/** The secrets a delivery is signed with at `now`: the current one, and the previous one while it overlaps. */
function secretsAt(
  row: { secret: string; previous_secret: string | null; previous_secret_until: number | null },
  now: number,
): string[] {
  return row.previous_secret !== null && (row.previous_secret_until ?? 0) > now
    ? [row.secret, row.previous_secret]
    : [row.secret];
}

/** The columns of an endpoint with its subscriptions, in either dialect (`string_agg` is PostgreSQL's, `group_concat` SQLite's). */
export const endpointSelect = (aggregate: 'group_concat' | 'string_agg') => `
  SELECT e.*, (SELECT ${aggregate}(s.event_type, ',') FROM webhook_subscriptions s WHERE s.endpoint_id = e.id) AS events
  FROM webhook_endpoints e`;

/** A claimed delivery with its endpoint's and its event's columns. */
export interface DueRow {
  id: number;
  event_id: string;
  endpoint_id: string;
  attempts: number;
  tries: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: number | null;
  failing_since: number | null;
  payload: string;
}

/** The endpoint's and the event's columns a claimed delivery is read with (`e` and `ev`). */
export const DUE_COLUMNS =
  'e.url, e.secret, e.previous_secret, e.previous_secret_until, e.failing_since, ev.payload';

export const toDue = (row: DueRow, now: number): DueDelivery => ({
  id: row.id,
  eventId: row.event_id,
  endpointId: row.endpoint_id,
  attempts: row.attempts,
  tries: row.tries,
  url: row.url,
  secrets: secretsAt(row, now),
  payload: row.payload,
  failingSince: row.failing_since,
});

// A disabled endpoint's pending deliveries are parked: they have no next attempt, so the due index, which
// every claim walks in order, holds nothing a claim must pass over (a disabled endpoint's backlog made each
// claim read all of it). Enabling the endpoint makes them due at once. Each takes the dialect's placeholders.

/** Parks the pending deliveries of the endpoint `endpoint` names. */
export const parkDeliveries = (endpoint: string) =>
  `UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE endpoint_id = ${endpoint} AND state = 'pending'`;

/** Makes the parked deliveries of the endpoint `endpoint` names due at `now`. */
export const unparkDeliveries = (now: string, endpoint: string) =>
  `UPDATE webhook_deliveries SET next_attempt_at = ${now}
   WHERE endpoint_id = ${endpoint} AND state = 'pending' AND next_attempt_at IS NULL`;

/** In an UPDATE of `webhook_deliveries` (not aliased): `at`, or parked (null) if its endpoint is disabled. */
export const dueIfEnabled = (at: string) =>
  `CASE WHEN EXISTS (SELECT 1 FROM webhook_endpoints pe WHERE pe.id = webhook_deliveries.endpoint_id AND pe.enabled = 1)
     THEN ${at} ELSE NULL END`;
