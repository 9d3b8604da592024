import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  EVENT_CATALOGUE,
  EVENT_DATA_SCHEMAS,
  EVENT_SCHEMAS,
  EVENT_TYPES,
  type EventType,
} from '../../src/contract/index.js';
import { storedEvent, storedEventOfJson } from '../../src/webhooks/index.js';
import { ajv, eventProblems } from '../support/event-schemas.js';

// The outbox writes each event's body by hand, as a string (src/webhooks/events.ts), to keep a create's cost
// low: held here to the schema the admin document publishes for every type of the catalogue.

const apiKey = {
  id: 'key_3fK9x2LmQ8aZ',
  name: 'hooked',
  plan: 'pro',
  limits: null,
  effectiveLimits: { perMinute: 600, perDay: 50_000 },
  scopes: ['categories:read', 'pets:read'],
  prefix: 'ps_test_3fK9',
  env: 'staging',
  state: 'active',
  createdAt: '2026-11-28T12:00:00.000Z',
  expiresAt: '2026-12-05T12:00:00.000Z',
  revokedAt: null,
  replacedBy: null,
  bannedUntil: null,
  lastUsedAt: null,
};

/** A `data` of each schema, as the service makes it: each is checked against its schema first. */
const DATA: Record<keyof typeof EVENT_DATA_SCHEMAS, unknown> = {
  Category: { id: 1, name: 'Dog', description: 'Domestic dogs of every breed' },
  Pet: { id: 2, name: 'Rex "the" \\ Dog', categoryId: 1, status: 'available' },
  Order: { id: 3, petId: 2, quantity: 1, status: 'placed', createdAt: '2026-11-28T12:00:00.000Z' },
  ApiKey: apiKey,
  ExpiringApiKey: { ...apiKey, expiresWithin: '7d' },
  ApiKeyAtThreshold: {
    ...apiKey,
    usage: {
      window: 'day',
      threshold: 80,
      used: 40_000,
      limit: 50_000,
      resetsAt: '2026-11-29T00:00:00.000Z',
    },
  },
  Domain: {
    name: 'docs.example.com',
    source: 'api',
    primary: false,
    redirect: null,
    state: 'verified',
    reason: 'Its CNAME points here.',
    fix: null,
    dns: [{ name: 'docs.example.com', type: 'CNAME', value: 'edge.example.net', required: true }],
    addedAt: '2026-11-28T12:00:00.000Z',
    stateSince: '2026-11-28T12:00:00.000Z',
    checkedAt: '2026-11-28T12:00:00.000Z',
    nextCheckAt: '2026-11-28T12:05:00.000Z',
    lastCheck: 'passed',
    certificate: null,
  },
  DisabledWebhookEndpoint: { id: 'we_0123456789abcdef0123', reason: 'gone', host: 'hooks.example.com:8443' },
};

const AT = Date.parse('2026-11-28T12:00:00.123Z');

test("each data sample has its schema's shape", () => {
  for (const [name, schema] of Object.entries(EVENT_DATA_SCHEMAS)) {
    const validate = ajv.compile(schema);
    assert.ok(validate(DATA[name as keyof typeof DATA]), `${name}: ${ajv.errorsText(validate.errors)}`);
  }
});

test('the payload written by hand, of every event type, is JSON with its schema: envelope and data', () => {
  for (const type of EVENT_TYPES) {
    const data = DATA[EVENT_CATALOGUE[type].data];
    for (const event of [
      storedEvent(type, data, AT),
      storedEventOfJson(type, JSON.stringify(data), AT),
      // An id given, as key.expiring makes one from the key, its expiry and the window.
      storedEvent(type, data, AT, `evt_${'0123456789abcdef'.repeat(2)}`),
    ]) {
      assert.deepEqual(eventProblems(event.payload), [], type);
      const parsed = JSON.parse(event.payload) as Record<string, unknown>;
      assert.deepEqual(parsed, {
        id: event.id,
        type,
        createdAt: new Date(AT).toISOString(),
        apiVersion: 'v1',
        data,
      });
      // In the schema's order, as a reader of the raw body sees it.
      assert.deepEqual(Object.keys(parsed), Object.keys(EVENT_SCHEMAS[type].properties));
      assert.equal(event.type, type);
      assert.equal(event.createdAt, AT);
    }
  }
});

test("an event's schema is its type's alone: another type's body, or another version, is refused", () => {
  const placed = JSON.parse(storedEvent('order.placed', DATA.Order, AT).payload) as Record<string, unknown>;
  const categoryCreated = ajv.compile(EVENT_SCHEMAS['category.created']);
  assert.equal(categoryCreated({ ...placed, type: 'category.created' }), false, 'an order is no category');
  const orderPlaced = ajv.compile(EVENT_SCHEMAS['order.placed']);
  assert.equal(orderPlaced({ ...placed, apiVersion: 'v2' }), false);
  assert.equal(orderPlaced({ ...placed, id: 'evt_1' }), false);
  assert.equal(orderPlaced({ ...placed, extra: true }), false);
  assert.deepEqual(eventProblems(JSON.stringify({ ...placed, type: 'order.shipped' })), [
    'order.shipped is not an event type',
  ]);
  const types: EventType[] = [...EVENT_TYPES];
  assert.deepEqual(Object.keys(EVENT_SCHEMAS).sort(), types.sort());
});
