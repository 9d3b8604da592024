import assert from 'node:assert/strict';
import { test } from 'node:test';
import { batchOf, type RequestRecord, recordsOf } from '../../src/request-log/index.js';

const row = (requestId: string, extra: Partial<RequestRecord> = {}): RequestRecord => ({
  at: 1_790_000_000_123,
  requestId,
  keyId: 'key_1',
  actor: null,
  client: '203.0.113.9',
  method: 'GET',
  route: '/v1/pets/{petId}',
  path: '/v1/pets/7',
  status: 200,
  errorCode: null,
  errorMessage: null,
  durationMs: 0.125,
  bytes: 10_193,
  remaining: 59,
  replayed: false,
  deprecated: false,
  instance: 'host:1',
  userAgent: 'curl/8.5.0',
  ...extra,
});

test('rows encoded into a batch read back as they were: nulls, empty and repeated strings, any text', () => {
  const records = [
    row('a-1'),
    // The same strings again, as most rows of a batch repeat their key, route and client.
    row('a-2', { path: '/v1/pets/8', remaining: null, replayed: true, deprecated: true }),
    row('', {
      keyId: null,
      actor: 'adm_1',
      client: null,
      method: 'POST',
      route: null,
      path: '',
      status: 422,
      errorCode: 'validation_failed',
      errorMessage: 'name: must be at most 100 characters, got “ünïcødé 🐾”\u0000',
      userAgent: null,
    }),
    row('a-4', { userAgent: '', errorMessage: '', errorCode: '' }),
  ];
  assert.deepEqual(recordsOf(batchOf(records)), records);
});

test('a batch with no rows reads back as none', () => {
  assert.deepEqual(recordsOf(batchOf([])), []);
});
