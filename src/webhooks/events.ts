import { randomFillSync } from 'node:crypto';
import { EVENT_API_VERSION, EVENT_TYPES, type EventType, type WebhookEvent } from '../contract/index.js';
import type { StoredEvent } from './types.js';

/**
 * The catalogue, the events' API version and their shape are the API's (src/contract/webhook-events.ts): what
 * endpoints subscribe to, and what the admin document publishes. `WebhookEvent` is one event as every endpoint
 * receives it, the body of each delivery: `id` is also the `webhook-id` of every attempt, so a receiver drops a
 * repeat by it, and `type` narrows `data`.
 */
export { EVENT_API_VERSION, EVENT_TYPES, type EventType, type WebhookEvent };

const KNOWN: ReadonlySet<string> = new Set(EVENT_TYPES);

export const isEventType = (value: string): value is EventType => KNOWN.has(value);

/** The random part of an event id, in bytes: 80 bits. */
const RANDOM_BYTES = 10;

/**
 * Random bytes for event ids, filled a hundred ids at a time: one `randomBytes(10)` call cost 4.7 µs here,
 * a tenth of a create's whole outbox cost, against 0.1 µs for a slice of this pool (as `crypto.randomUUID`
 * keeps its own). The bytes are the CSPRNG's either way.
 */
const pool = Buffer.alloc(RANDOM_BYTES * 100);
let poolOffset = pool.length;

function randomHex(): string {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += RANDOM_BYTES;
  return pool.toString('hex', poolOffset - RANDOM_BYTES, poolOffset);
}

/**
 * A new event id: `evt_`, the time in milliseconds (12 hex digits) and 80 random bits. Ordered by time, so
 * that the outbox's indexes of it grow at their end, as its rows do, instead of at a random page each.
 */
export function newEventId(at: number): string {
  return `evt_${at.toString(16).padStart(12, '0')}${randomHex()}`;
}

/**
 * An event about to be kept in the outbox: a new id ({@link newEventId}), and its body as every
 * delivery of it sends it. An `id` given instead (`evt_` and 32 hex digits) makes the event one the outbox
 * keeps once: a second event with that id is dropped, whoever makes it.
 */
export function storedEvent(type: EventType, data: unknown, at: number, id?: string): StoredEvent {
  return storedEventOfJson(type, JSON.stringify(data), at, id);
}

/**
 * `storedEvent` of data already written as JSON: a create's answer body, so that `data` is byte for byte what
 * `/v1` answered, and is not serialized twice.
 */
export function storedEventOfJson(
  type: EventType,
  dataJson: string,
  at: number,
  id = newEventId(at),
): StoredEvent {
  const createdAt = new Date(at).toISOString();
  // The fields of `WebhookEvent`, in its schema's order; test/webhooks/payload.test.ts holds it to the schema.
  const payload = `{"id":"${id}","type":"${type}","createdAt":"${createdAt}","apiVersion":"${EVENT_API_VERSION}","data":${dataJson}}`;
  return { id, type, createdAt: at, payload };
}
