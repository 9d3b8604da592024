import assert from 'node:assert/strict';
import { executionAsyncResource } from 'node:async_hooks';
import { test } from 'node:test';
import { keepTickShape } from '../../src/app/index.js';

/** The keys of an object, symbols by their description, in V8's order. */
const keysOf = (object: object) =>
  Reflect.ownKeys(object).map((key) => (typeof key === 'symbol' ? `symbol ${key.description}` : key));

test('keepTickShape keeps a tick object of process.nextTick, and only one however often it is called', async () => {
  // Called from a callback that is no tick (an Immediate), as a server's start may be.
  const kept = await new Promise<object>((resolve) => setImmediate(() => resolve(keepTickShape())));
  // The same kind of object as the one nextTick builds for any callback: a plain object with these keys,
  // in this order. Another resource (a microtask's, say) would keep the wrong maps alive.
  const tick = await new Promise<object>((resolve) =>
    process.nextTick(() => resolve(executionAsyncResource())),
  );
  assert.deepEqual(keysOf(tick), [
    'callback',
    'args',
    'symbol async_id_symbol',
    'symbol trigger_async_id_symbol',
  ]);
  assert.equal(Object.getPrototypeOf(kept), Object.prototype);
  assert.deepEqual(keysOf(kept), keysOf(tick));
  assert.equal(await keepTickShape(), kept);
});
