import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newEventId, storedEvent } from '../../src/webhooks/index.js';

test('event ids are evt_ and 32 hex digits, ordered by their time, and never repeat', () => {
  const at = Date.parse('2026-11-29T05:00:00Z');
  const ids = Array.from({ length: 1000 }, (_, index) => newEventId(at + Math.floor(index / 10)));
  for (const id of ids) assert.match(id, /^evt_[0-9a-f]{32}$/);
  assert.equal(new Set(ids).size, ids.length);
  const later = ids.filter((_, index) => index % 10 === 0);
  assert.deepEqual([...later].sort(), later, 'a later millisecond sorts after an earlier one');
  assert.equal(storedEvent('pet.created', {}, at).id.slice(0, 16), newEventId(at).slice(0, 16));
});
