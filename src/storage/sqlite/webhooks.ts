import type { AuditEntry } from '../../audit/index.js';
import type { AttemptOutcome, EventType, StoredEvent, WebhookRepository } from '../../webhooks/index.js';
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
import type { Database } from './driver.js';
import type { WriteQueue } from './write-queue.js';

/** Every statement of the webhooks' tables, prepared together. */
function prepareStatements(db: Database) {
  const selectEndpoint = endpointSelect('group_concat');
  const listEndpoints = db.prepare<[], EndpointRow>(`${selectEndpoint} ORDER BY e.created_at, e.id`);
  const getEndpoint = db.prepare<[string], EndpointRow>(`${selectEndpoint} WHERE e.id = ?`);
  const insertEndpoint = db.prepare(
    `INSERT INTO webhook_endpoints (id, url, description, enabled, secret, created_at, updated_at)
     VALUES (@id, @url, @description, 1, @secret, @createdAt, @createdAt)`,
  );
  const subscribe = db.prepare<[string, string]>(
    'INSERT INTO webhook_subscriptions (event_type, endpoint_id) VALUES (?, ?)',
  );
  const unsubscribeAll = db.prepare<[string]>('DELETE FROM webhook_subscriptions WHERE endpoint_id = ?');
  const updateEndpoint = db.prepare(
    `UPDATE webhook_endpoints SET
       url = coalesce(@url, url),
       description = coalesce(@description, description),
       enabled = coalesce(@enabled, enabled),
       disabled_reason = CASE WHEN @setsReason THEN @disabledReason ELSE disabled_reason END,
       secret = coalesce(@secret, secret),
       previous_secret = CASE WHEN @setsPrevious THEN @previousSecret ELSE previous_secret END,
       previous_secret_until = CASE WHEN @setsPrevious THEN @previousSecretUntil ELSE previous_secret_until END,
       failing_since = CASE WHEN @enabled = 1 THEN NULL ELSE failing_since END,
       updated_at = @at
     WHERE id = @id`,
  );
  const deleteEndpoint = db.prepare<[string]>('DELETE FROM webhook_endpoints WHERE id = ?');

  const subscribers = db.prepare<[string], { id: string }>(
    `SELECT e.id FROM webhook_subscriptions s JOIN webhook_endpoints e ON e.id = s.endpoint_id
     WHERE s.event_type = ? AND e.enabled = 1`,
  );
  const endpointExists = db.prepare<[string], { id: string }>(
    'SELECT id FROM webhook_endpoints WHERE id = ?',
  );
  const insertEvent = db.prepare<[string, string, number, string]>(
    'INSERT OR IGNORE INTO webhook_events (id, type, created_at, payload) VALUES (?, ?, ?, ?)',
  );
  const insertDelivery = db.prepare<[{ eventId: string; endpointId: string; at: number }]>(
    `INSERT INTO webhook_deliveries (event_id, endpoint_id, state, attempts, tries, next_attempt_at, created_at, updated_at)
     VALUES (@eventId, @endpointId, 'pending', 0, 0, @at, @at, @at)`,
  );

  const anyDue = db.prepare<[{ now: number }], 1>(
    `SELECT 1 FROM webhook_deliveries
     WHERE state = 'pending' AND next_attempt_at <= @now AND (lease_until IS NULL OR lease_until <= @now) LIMIT 1`,
  );
  const claim = db.prepare<[{ leaseUntil: number; now: number; limit: number }], { id: number }>(
    `UPDATE webhook_deliveries SET lease_until = @leaseUntil
     WHERE id IN (
       -- The due index, in its order: left to itself, SQLite picks the endpoint's index and sorts every
       -- pending delivery of the endpoint at each claim.
       SELECT id FROM webhook_deliveries INDEXED BY webhook_deliveries_due
       WHERE state = 'pending' AND next_attempt_at <= @now AND (lease_until IS NULL OR lease_until <= @now)
         AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE enabled = 1)
       ORDER BY next_attempt_at LIMIT @limit)
     RETURNING id`,
  );
  const dueRow = db.prepare<[number], DueRow>(
    `SELECT d.id, d.event_id, d.endpoint_id, d.attempts, d.tries, ${DUE_COLUMNS}
     FROM webhook_deliveries d
     JOIN webhook_endpoints e ON e.id = d.endpoint_id
     JOIN webhook_events ev ON ev.id = d.event_id
     WHERE d.id = ?`,
  );
  const insertAttempt = db.prepare(
    `INSERT INTO webhook_attempts (delivery_id, attempt, at, status, latency_ms, excerpt, error, next_attempt_at)
     VALUES (@deliveryId, @attempt, @at, @status, @latencyMs, @excerpt, @error, @nextAttemptAt)`,
  );
  const afterAttempt = db.prepare(
    `UPDATE webhook_deliveries SET state = @state, attempts = @attempt, tries = tries + 1,
       next_attempt_at = ${dueIfEnabled('@nextAttemptAt')}, lease_until = NULL,
       last_status = @status, updated_at = @at
     WHERE id = @deliveryId`,
  );
  const park = db.prepare<[string]>(parkDeliveries('?'));
  const unpark = db.prepare<[number, string]>(unparkDeliveries('?', '?'));
  const endpointOf = db.prepare<[number], { endpoint_id: string; attempts: number }>(
    'SELECT endpoint_id, attempts FROM webhook_deliveries WHERE id = ?',
  );
  const succeeded = db.prepare<[string]>('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ?');
  const failed = db.prepare<[number, string]>(
    'UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ?) WHERE id = ?',
  );
  const disable = db.prepare<[string, number, string]>(
    'UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ? AND enabled = 1',
  );

  const deliveryColumns = `SELECT d.*, ev.type AS event_type FROM webhook_deliveries d
     JOIN webhook_events ev ON ev.id = d.event_id`;
  const listDeliveries = db.prepare(
    `${deliveryColumns}
     WHERE d.endpoint_id = @endpointId AND (@state IS NULL OR d.state = @state)
       AND (@since IS NULL OR d.created_at >= @since) AND (@before IS NULL OR d.id < @before)
     ORDER BY d.id DESC LIMIT @limit`,
  );
  const getDelivery = db.prepare<[number], DeliveryRow>(`${deliveryColumns} WHERE d.id = ?`);
  const listAttempts = db.prepare<[number], AttemptRow>(
    'SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt',
  );
  const replayed = `UPDATE webhook_deliveries
     SET state = 'pending', tries = 0, next_attempt_at = ${dueIfEnabled('@now')}, updated_at = @now`;
  const replayOne = db.prepare<[{ now: number; id: number }]>(
    `${replayed} WHERE id = @id AND (lease_until IS NULL OR lease_until <= @now)`,
  );
  const replayFailed = db.prepare<[{ now: number; endpointId: string; since: number }]>(
    `${replayed} WHERE endpoint_id = @endpointId AND state = 'failed' AND created_at >= @since`,
  );
  // Oldest first, in the order of their ids (their rowids): the rows to go are at the front of the table.
  const pruneDeliveries = db.prepare<[{ before: number; limit: number }]>(
    `DELETE FROM webhook_deliveries WHERE id IN (
       SELECT id FROM webhook_deliveries WHERE state <> 'pending' AND updated_at < @before ORDER BY id LIMIT @limit)`,
  );
  const pruneEvents = db.prepare<[{ before: number; limit: number }]>(
    `DELETE FROM webhook_events WHERE rowid IN (
       SELECT ev.rowid FROM webhook_events ev
       WHERE ev.created_at < @before AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = ev.id)
       ORDER BY ev.rowid LIMIT @limit)`,
  );

  return {
    anyDue,
    pruneDeliveries,
    pruneEvents,
    listEndpoints,
    getEndpoint,
    insertEndpoint,
    subscribe,
    unsubscribeAll,
    updateEndpoint,
    deleteEndpoint,
    subscribers,
    endpointExists,
    insertEvent,
    insertDelivery,
    claim,
    dueRow,
    insertAttempt,
    afterAttempt,
    park,
    unpark,
    endpointOf,
    succeeded,
    failed,
    disable,
    listDeliveries,
    getDelivery,
    listAttempts,
    replayOne,
    replayFailed,
  };
}

/**
 * The webhooks' tables in SQLite. `enqueue` runs inside the write that makes the change an event tells of
 * (the create's group transaction), so that the event and the change commit or roll back together.
 */
export function sqliteWebhooks(
  db: Database,
  writes: WriteQueue,
  audit: { append(entry: AuditEntry): void },
): {
  repository: WebhookRepository;
  enqueue(type: EventType, make: () => StoredEvent, endpointId?: string): number;
} {
  // Prepared at first use, not at opening: a database still at an older schema (`migrate --check`, a file
  // about to be restored) opens without these tables.
  let prepared: ReturnType<typeof prepareStatements> | undefined;
  const statements = () => {
    prepared ??= prepareStatements(db);
    return prepared;
  };

  /** Keeps the event and its deliveries; with no endpoint to send it to, the event is not even made. */
  function enqueue(type: EventType, make: () => StoredEvent, endpointId?: string): number {
    const targets =
      endpointId === undefined
        ? statements()
            .subscribers.all(type)
            .map((row) => row.id)
        : statements()
            .endpointExists.all(endpointId)
            .map((row) => row.id);
    if (targets.length === 0) return 0;
    const event = make();
    // An event whose id the outbox holds already was kept by another look (`storedEvent`'s `id`).
    if (statements().insertEvent.run(event.id, event.type, event.createdAt, event.payload).changes === 0)
      return 0;
    for (const target of targets)
      statements().insertDelivery.run({ eventId: event.id, endpointId: target, at: event.createdAt });
    return targets.length;
  }

  /** One attempt, in the write of its batch, which applies them in the order they were made. */
  function recordOne(outcome: AttemptOutcome): void {
    const { attempt } = outcome;
    const { deliveryId } = attempt;
    const delivery = statements().endpointOf.get(deliveryId);
    // Deleted with its endpoint while the attempt was under way: nothing is left to keep it in. Or this
    // attempt is kept already: an instance whose lease ran out mid-attempt sent it again, and the first
    // record stands.
    if (delivery === undefined || delivery.attempts >= attempt.attempt) return;
    const endpoint = delivery.endpoint_id;
    statements().insertAttempt.run(attempt);
    statements().afterAttempt.run({
      deliveryId,
      state: outcome.state,
      attempt: attempt.attempt,
      nextAttemptAt: outcome.nextAttemptAt,
      status: attempt.status,
      at: attempt.at,
    });
    if (outcome.state === 'delivered') statements().succeeded.run(endpoint);
    else statements().failed.run(attempt.at, endpoint);
    if (
      outcome.disable !== undefined &&
      statements().disable.run(outcome.disable.reason, attempt.at, endpoint).changes > 0
    ) {
      statements().park.run(endpoint);
      audit.append(outcome.disable.entry);
    }
  }

  const repository: WebhookRepository = {
    createEndpoint(endpoint, entry) {
      return writes.run(() => {
        statements().insertEndpoint.run(endpoint);
        for (const type of endpoint.events) statements().subscribe.run(type, endpoint.id);
        audit.append(entry);
        return toEndpoint(statements().getEndpoint.get(endpoint.id) as EndpointRow);
      });
    },
    async listEndpoints() {
      return statements().listEndpoints.all().map(toEndpoint);
    },
    async getEndpoint(id) {
      const row = statements().getEndpoint.get(id);
      return row === undefined ? undefined : toEndpoint(row);
    },
    updateEndpoint(id, change, entry) {
      return writes.run(() => {
        const { changes } = statements().updateEndpoint.run({
          id,
          url: change.url ?? null,
          description: change.description ?? null,
          enabled: change.enabled === undefined ? null : change.enabled ? 1 : 0,
          setsReason: change.disabledReason === undefined ? 0 : 1,
          disabledReason: change.disabledReason ?? null,
          secret: change.secret ?? null,
          setsPrevious: change.previousSecret === undefined ? 0 : 1,
          previousSecret: change.previousSecret ?? null,
          previousSecretUntil: change.previousSecretUntil ?? null,
          at: change.at,
        });
        if (changes === 0) return undefined;
        if (change.enabled === false) statements().park.run(id);
        if (change.enabled === true) statements().unpark.run(change.at, id);
        if (change.events !== undefined) {
          statements().unsubscribeAll.run(id);
          for (const type of change.events) statements().subscribe.run(type, id);
        }
        audit.append(entry);
        return toEndpoint(statements().getEndpoint.get(id) as EndpointRow);
      });
    },
    deleteEndpoint(id, entry) {
      return writes.run(() => {
        if (statements().deleteEndpoint.run(id).changes === 0) return false;
        audit.append(entry);
        return true;
      });
    },
    publish(event, endpointId) {
      return writes.run(() => enqueue(event.type, () => event, endpointId));
    },
    async claimDue(now, limit, leaseMs) {
      // A read first: the dispatcher asks every second, and a write would commit (and fsync) each time.
      if (statements().anyDue.get({ now }) === undefined) return [];
      // A lease a crash loses only frees its deliveries for the next claim: no fsync for it.
      return writes.run(
        () =>
          statements()
            .claim.all({ leaseUntil: now + leaseMs, now, limit })
            .map(({ id }) => toDue(statements().dueRow.get(id) as DueRow, now)),
        { durable: false },
      );
    },
    recordAttempts(outcomes) {
      // A record a crash loses leaves its delivery leased until the lease ends, then sent again: no fsync.
      return writes.run(
        () => {
          for (const outcome of [...outcomes].sort((a, b) => a.attempt.at - b.attempt.at)) recordOne(outcome);
        },
        { durable: false },
      );
    },
    async listDeliveries(endpointId, page) {
      const rows = statements().listDeliveries.all({
        endpointId,
        state: page.state ?? null,
        since: page.since ?? null,
        before: page.before ?? null,
        limit: page.limit,
      }) as DeliveryRow[];
      return rows.map(toDelivery);
    },
    async getDelivery(deliveryId) {
      const row = statements().getDelivery.get(deliveryId);
      return row === undefined ? undefined : toDelivery(row);
    },
    async listAttempts(deliveryId) {
      return statements().listAttempts.all(deliveryId).map(toAttempt);
    },
    prune(before, limit) {
      // What a crash loses of a prune is done again by the next: no fsync of its own.
      return writes.run(
        () => ({
          deliveries: statements().pruneDeliveries.run({ before, limit }).changes,
          events: statements().pruneEvents.run({ before, limit }).changes,
        }),
        { durable: false },
      );
    },
    replay(target, now) {
      return writes.run(() =>
        'deliveryId' in target
          ? statements().replayOne.run({ now, id: target.deliveryId }).changes
          : statements().replayFailed.run({ now, endpointId: target.endpointId, since: target.failedSince })
              .changes,
      );
    },
  };
  return { repository, enqueue };
}
