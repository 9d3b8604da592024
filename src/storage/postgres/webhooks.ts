import type pg from 'pg';
import type { AuditEntry } from '../../audit/index.js';
import type {
  AttemptOutcome,
  StoredEvent,
  WebhookEndpoint,
  WebhookRepository,
} from '../../webhooks/index.js';
import {
  type AttemptRow,
  type DeliveryRow,
  DUE_COLUMNS,
  type DueRow,
  dueIfEnabled,
  type EndpointRow,
  endpointSelect,
  parkDeliveries,
  toAttempt,
  toDelivery,
  toDue,
  toEndpoint,
  unparkDeliveries,
} from '../webhook-rows.js';
import { type Queryable, transaction } from './transaction.js';

const SELECT_ENDPOINT = endpointSelect('string_agg');

/**
 * The event and a delivery due at once for each target, in one statement: the targets are the enabled
 * endpoints subscribed to the type ($5 null), or endpoint $5 alone. No target, no event kept.
 */
const ENQUEUE = `
  WITH targets AS (
    SELECT e.id FROM webhook_endpoints e
    WHERE ($5::text IS NULL AND e.enabled = 1
           AND EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.endpoint_id = e.id AND s.event_type = $2))
       OR e.id = $5
  ), event AS (
    INSERT INTO webhook_events (id, type, created_at, payload)
    SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM targets)
    ON CONFLICT (id) DO NOTHING
    RETURNING id
  )
  INSERT INTO webhook_deliveries (event_id, endpoint_id, state, attempts, tries, next_attempt_at, created_at, updated_at)
  SELECT event.id, targets.id, 'pending', 0, 0, $3, $3, $3 FROM event CROSS JOIN targets`;

/**
 * Claims due deliveries for one attempt each: `SKIP LOCKED` leaves the rows another instance is claiming at
 * this moment to it, and the lease keeps them from every other claim until the attempt is recorded or the
 * lease runs out (the instance died).
 */
const CLAIM = `
  WITH due AS (
    SELECT d.id FROM webhook_deliveries d
    JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.enabled = 1
    WHERE d.state = 'pending' AND d.next_attempt_at <= $2 AND (d.lease_until IS NULL OR d.lease_until <= $2)
    ORDER BY d.next_attempt_at LIMIT $3
    FOR UPDATE OF d SKIP LOCKED
  ), claimed AS (
    UPDATE webhook_deliveries d SET lease_until = $1 FROM due WHERE d.id = due.id
    RETURNING d.id, d.event_id, d.endpoint_id, d.attempts, d.tries
  )
  SELECT c.*, ${DUE_COLUMNS}
  FROM claimed c
  JOIN webhook_endpoints e ON e.id = c.endpoint_id
  JOIN webhook_events ev ON ev.id = c.event_id`;

const DELIVERY_COLUMNS = `SELECT d.*, ev.type AS event_type FROM webhook_deliveries d
  JOIN webhook_events ev ON ev.id = d.event_id`;

/**
 * The webhooks' tables in PostgreSQL. `enqueue` runs on the client of the create's group transaction, so
 * that the event and the change commit or roll back together.
 */
export function postgresWebhooks(
  pool: pg.Pool,
  audit: { append(db: Queryable, entry: AuditEntry): Promise<void> },
): {
  repository: WebhookRepository;
  enqueue(db: Queryable, event: StoredEvent, endpointId?: string): Promise<number>;
} {
  const getEndpoint = async (db: Queryable, id: string) => {
    const { rows } = await db.query<EndpointRow>(`${SELECT_ENDPOINT} WHERE e.id = $1`, [id]);
    return rows[0] === undefined ? undefined : toEndpoint(rows[0]);
  };
  const subscribe = (db: Queryable, id: string, events: readonly string[]) =>
    db.query('INSERT INTO webhook_subscriptions (event_type, endpoint_id) SELECT unnest($1::text[]), $2', [
      events,
      id,
    ]);

  async function enqueue(db: Queryable, event: StoredEvent, endpointId?: string): Promise<number> {
    const { rowCount } = await db.query(ENQUEUE, [
      event.id,
      event.type,
      event.createdAt,
      event.payload,
      endpointId ?? null,
    ]);
    return rowCount ?? 0;
  }

  /** One attempt and its delivery, in the transaction of its batch: the delivery's endpoint, if it is left. */
  async function recordDelivery(client: Queryable, outcome: AttemptOutcome): Promise<string | undefined> {
    const { attempt } = outcome;
    const { deliveryId } = attempt;
    const { rows } = await client.query<{ endpoint_id: string; attempts: number }>(
      'SELECT endpoint_id, attempts FROM webhook_deliveries WHERE id = $1 FOR UPDATE',
      [deliveryId],
    );
    const delivery = rows[0];
    // Deleted with its endpoint while the attempt was under way: nothing is left to keep it in. Or this
    // attempt is kept already: an instance whose lease ran out mid-attempt sent it again, and the first
    // record stands.
    if (delivery === undefined || delivery.attempts >= attempt.attempt) return undefined;
    const endpoint = delivery.endpoint_id;
    await client.query(
      `INSERT INTO webhook_attempts (delivery_id, attempt, at, status, latency_ms, excerpt, error, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        deliveryId,
        attempt.attempt,
        attempt.at,
        attempt.status,
        attempt.latencyMs,
        attempt.excerpt,
        attempt.error,
        attempt.nextAttemptAt,
      ],
    );
    await client.query(
      `UPDATE webhook_deliveries SET state = $2, attempts = $3, tries = tries + 1,
         next_attempt_at = ${dueIfEnabled('$4::bigint')}, lease_until = NULL, last_status = $5, updated_at = $6
       WHERE id = $1`,
      [deliveryId, outcome.state, attempt.attempt, outcome.nextAttemptAt, attempt.status, attempt.at],
    );
    return endpoint;
  }

  /**
   * What a batch's attempts leave their endpoints as: since when each has failed without a success, and
   * whether it is disabled. Each endpoint's row is written once, in the order of their ids, so that two
   * instances recording at once never wait on each other in a circle.
   */
  async function recordEndpoints(
    client: Queryable,
    byEndpoint: Map<string, AttemptOutcome[]>,
  ): Promise<void> {
    for (const endpoint of [...byEndpoint.keys()].sort()) {
      const outcomes = (byEndpoint.get(endpoint) ?? []).sort((a, b) => a.attempt.at - b.attempt.at);
      const lastSuccess = outcomes.findLastIndex((outcome) => outcome.state === 'delivered');
      const firstFailure = outcomes.slice(lastSuccess + 1)[0]?.attempt.at ?? null;
      await client.query(
        lastSuccess >= 0
          ? 'UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1'
          : 'UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, $2) WHERE id = $1',
        [endpoint, firstFailure],
      );
      const disabling = outcomes.find((outcome) => outcome.disable !== undefined);
      if (disabling?.disable === undefined) continue;
      const disabled = await client.query(
        `UPDATE webhook_endpoints SET enabled = 0, disabled_reason = $2, updated_at = $3
         WHERE id = $1 AND enabled = 1`,
        [endpoint, disabling.disable.reason, disabling.attempt.at],
      );
      if ((disabled.rowCount ?? 0) === 0) continue;
      await client.query(parkDeliveries('$1'), [endpoint]);
      await audit.append(client, disabling.disable.entry);
    }
  }

  const repository: WebhookRepository = {
    createEndpoint(endpoint, entry) {
      return transaction(pool, async (client) => {
        await client.query(
          `INSERT INTO webhook_endpoints (id, url, description, enabled, secret, created_at, updated_at)
           VALUES ($1, $2, $3, 1, $4, $5, $5)`,
          [endpoint.id, endpoint.url, endpoint.description, endpoint.secret, endpoint.createdAt],
        );
        await subscribe(client, endpoint.id, endpoint.events);
        await audit.append(client, entry);
        return (await getEndpoint(client, endpoint.id)) as WebhookEndpoint;
      });
    },
    async listEndpoints() {
      const { rows } = await pool.query<EndpointRow>(`${SELECT_ENDPOINT} ORDER BY e.created_at, e.id`);
      return rows.map(toEndpoint);
    },
    getEndpoint: (id) => getEndpoint(pool, id),
    updateEndpoint(id, change, entry) {
      return transaction(pool, async (client) => {
        const { rowCount } = await client.query(
          `UPDATE webhook_endpoints SET
             url = coalesce($2, url),
             description = coalesce($3, description),
             enabled = coalesce($4, enabled),
             disabled_reason = CASE WHEN $5 THEN $6 ELSE disabled_reason END,
             secret = coalesce($7, secret),
             previous_secret = CASE WHEN $8 THEN $9 ELSE previous_secret END,
             previous_secret_until = CASE WHEN $8 THEN $10::bigint ELSE previous_secret_until END,
             failing_since = CASE WHEN $4 = 1 THEN NULL ELSE failing_since END,
             updated_at = $11
           WHERE id = $1`,
          [
            id,
            change.url ?? null,
            change.description ?? null,
            change.enabled === undefined ? null : change.enabled ? 1 : 0,
            change.disabledReason !== undefined,
            change.disabledReason ?? null,
            change.secret ?? null,
            change.previousSecret !== undefined,
            change.previousSecret ?? null,
            change.previousSecretUntil ?? null,
            change.at,
          ],
        );
        if ((rowCount ?? 0) === 0) return undefined;
        if (change.enabled === false) await client.query(parkDeliveries('$1'), [id]);
        if (change.enabled === true) await client.query(unparkDeliveries('$2', '$1'), [id, change.at]);
        if (change.events !== undefined) {
          await client.query('DELETE FROM webhook_subscriptions WHERE endpoint_id = $1', [id]);
          await subscribe(client, id, change.events);
        }
        await audit.append(client, entry);
        return getEndpoint(client, id);
      });
    },
    deleteEndpoint(id, entry) {
      return transaction(pool, async (client) => {
        const { rowCount } = await client.query('DELETE FROM webhook_endpoints WHERE id = $1', [id]);
        if ((rowCount ?? 0) === 0) return false;
        await audit.append(client, entry);
        return true;
      });
    },
    publish: (event, endpointId) => enqueue(pool, event, endpointId),
    async claimDue(now, limit, leaseMs) {
      const { rows } = await pool.query<DueRow>(CLAIM, [now + leaseMs, now, limit]);
      return rows.map((row) => toDue(row, now));
    },
    async recordAttempts(outcomes) {
      const ordered = [...outcomes].sort((a, b) => a.attempt.deliveryId - b.attempt.deliveryId);
      await transaction(pool, async (client) => {
        // Endpoints before deliveries, as a change of an endpoint (which parks or unparks its deliveries)
        // and its deletion (which cascades to them) lock them: the same order everywhere, so no two
        // transactions wait on each other in a circle.
        await client.query(
          `SELECT 1 FROM webhook_endpoints
           WHERE id IN (SELECT endpoint_id FROM webhook_deliveries WHERE id = ANY($1::bigint[]))
           ORDER BY id FOR NO KEY UPDATE`,
          [ordered.map((outcome) => outcome.attempt.deliveryId)],
        );
        const byEndpoint = new Map<string, AttemptOutcome[]>();
        for (const outcome of ordered) {
          const endpoint = await recordDelivery(client, outcome);
          if (endpoint === undefined) continue;
          byEndpoint.set(endpoint, [...(byEndpoint.get(endpoint) ?? []), outcome]);
        }
        await recordEndpoints(client, byEndpoint);
      });
    },
    async listDeliveries(endpointId, page) {
      const { rows } = await pool.query<DeliveryRow>(
        `${DELIVERY_COLUMNS}
         WHERE d.endpoint_id = $1 AND ($2::text IS NULL OR d.state = $2)
           AND ($3::bigint IS NULL OR d.created_at >= $3) AND ($4::bigint IS NULL OR d.id < $4)
         ORDER BY d.id DESC LIMIT $5`,
        [endpointId, page.state ?? null, page.since ?? null, page.before ?? null, page.limit],
      );
      return rows.map(toDelivery);
    },
    async getDelivery(deliveryId) {
      const { rows } = await pool.query<DeliveryRow>(`${DELIVERY_COLUMNS} WHERE d.id = $1`, [deliveryId]);
      return rows[0] === undefined ? undefined : toDelivery(rows[0]);
    },
    async listAttempts(deliveryId) {
      const { rows } = await pool.query<AttemptRow>(
        'SELECT * FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt',
        [deliveryId],
      );
      return rows.map(toAttempt);
    },
    prune(before, limit) {
      // SKIP LOCKED: instances pruning at once take different rows, and never wait on each other.
      return transaction(pool, async (client) => {
        const deliveries = await client.query(
          `DELETE FROM webhook_deliveries WHERE id IN (
             SELECT id FROM webhook_deliveries WHERE state <> 'pending' AND updated_at < $1
             ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)`,
          [before, limit],
        );
        const events = await client.query(
          `DELETE FROM webhook_events WHERE id IN (
             SELECT ev.id FROM webhook_events ev
             WHERE ev.created_at < $1 AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id)
             LIMIT $2 FOR UPDATE SKIP LOCKED)`,
          [before, limit],
        );
        return { deliveries: deliveries.rowCount ?? 0, events: events.rowCount ?? 0 };
      });
    },
    async replay(target, now) {
      const replayed = `UPDATE webhook_deliveries
         SET state = 'pending', tries = 0, next_attempt_at = ${dueIfEnabled('$1::bigint')}, updated_at = $1`;
      const { rowCount } =
        'deliveryId' in target
          ? await pool.query(`${replayed} WHERE id = $2 AND (lease_until IS NULL OR lease_until <= $1)`, [
              now,
              target.deliveryId,
            ])
          : await pool.query(`${replayed} WHERE endpoint_id = $2 AND state = 'failed' AND created_at >= $3`, [
              now,
              target.endpointId,
              target.failedSince,
            ]);
      return rowCount ?? 0;
    },
  };
  return { repository, enqueue };
}
