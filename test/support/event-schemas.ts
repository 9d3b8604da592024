import { Ajv, type ValidateFunction } from 'ajv';
import { EVENT_SCHEMAS, EVENT_TYPES, type EventType, TestEvent } from '../../src/contract/index.js';

/** RFC 3339 with its offset, a time that exists: what `format: date-time` promises a receiver. */
const dateTime = (text: string) =>
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text) &&
  !Number.isNaN(Date.parse(text));

/** A receiver's Ajv: it checks `date-time` too (the service's own takes formats as annotations). */
export const receiverAjv = () =>
  new Ajv({ allErrors: true, strict: false, formats: { 'date-time': dateTime, int64: true } });

export const ajv = receiverAjv();

const VALIDATORS = new Map<string, ValidateFunction>(
  EVENT_TYPES.map((type) => [type, ajv.compile(EVENT_SCHEMAS[type as EventType])]),
);

/**
 * What is wrong with a delivery's body, held to the schema the admin document publishes for its `type`
 * (src/contract/webhook-events.ts): nothing, an empty list.
 */
export function eventProblems(body: string): string[] {
  const event = JSON.parse(body) as { type?: unknown };
  const type = String(event.type);
  const validate = VALIDATORS.get(type);
  if (validate === undefined) return [`${type} is not an event type`];
  if (validate(event)) return [];
  return (validate.errors ?? []).map(
    (error) => `${type}${error.instancePath} ${error.message ?? error.keyword}`,
  );
}

const TEST_EVENT = ajv.compile(TestEvent);

/** What is wrong with a test event's body (`POST /admin/v1/webhooks/{id}/test`), held to its schema. */
export function testEventProblems(body: string): string[] {
  if (TEST_EVENT(JSON.parse(body))) return [];
  return (TEST_EVENT.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? error.keyword}`);
}
