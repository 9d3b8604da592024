import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { keepTickShape } from '../../src/app/index.js';

const APP = new URL('../../src/app/index.js', import.meta.url).href;

/**
 * A child process that makes ticks, lets V8 collect with none alive (as it does in an idle spell), makes
 * more, then prints the state of nextTick's literal sites (`%DebugPrint`) and whether a fresh tick object
 * has the kept one's map. `keep`: whether it calls keepTickShape first.
 *
 * V8 keeps a map that nothing uses through two more old-space collections (`--retain-maps-for-n-gc=2`),
 * and whether the three `gc()` calls below all count depends on what else the machine runs: on a busy
 * one, half the runs kept the maps. The child runs with 0, so the maps go at the first collection. That
 * makes the control (no kept object) certain, and the kept case no easier: only the kept object holds
 * the map.
 */
const idleScript = (keep: boolean) => `
import { createHook } from 'node:async_hooks';
import { keepTickShape } from ${JSON.stringify(APP)};
const kept = ${keep ? 'keepTickShape()' : 'undefined'};
const chain = (n) => new Promise((resolve) => {
  const step = () => (--n === 0 ? resolve() : process.nextTick(step));
  process.nextTick(step);
});
await chain(10000);
for (let i = 0; i < 3; i += 1) {
  await new Promise((resolve) => setTimeout(resolve, 10));
  gc();
}
await chain(10000);
let fresh;
const hook = createHook({ init(id, type, trigger, resource) { if (type === 'TickObject') fresh ??= resource; } });
hook.enable();
process.nextTick(() => {});
hook.disable();
%DebugPrint(process.nextTick);
console.log('sameMap', kept === undefined ? 'none' : %HaveSameMap(kept, fresh));
`;

async function afterIdle(keep: boolean): Promise<{ literalSlots: string[]; sameMap: string | undefined }> {
  const args = [
    '--retain-maps-for-n-gc=0',
    '--expose-gc',
    '--allow-natives-syntax',
    '--input-type=module',
    '-e',
    idleScript(keep),
  ];
  const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
  return {
    literalSlots: [...stdout.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map(
      (match) => match[1] ?? '',
    ),
    sameMap: /^sameMap (\w+)$/m.exec(stdout)?.[1],
  };
}

/** The names of an object's own keys, symbols by their description, in order. */
const keyNames = (object: object) =>
  Reflect.ownKeys(object).map((key) => (typeof key === 'symbol' ? key.description : key));

test('keepTickShape keeps one plain object with the keys of a nextTick tick object', () => {
  const kept = keepTickShape();
  assert.ok(kept !== undefined);
  assert.equal(Object.getPrototypeOf(kept), Object.prototype);
  let fresh: object | undefined;
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'TickObject') fresh ??= resource as object;
    },
  });
  hook.enable();
  process.nextTick(() => {});
  hook.disable();
  assert.ok(fresh !== undefined);
  assert.notEqual(fresh, kept);
  // Node 22 and later add an async context frame after these four.
  assert.deepEqual(keyNames(kept).slice(0, 4), [
    'callback',
    'args',
    'async_id_symbol',
    'trigger_async_id_symbol',
  ]);
  assert.deepEqual(keyNames(kept), keyNames(fresh));
  assert.equal(keepTickShape(), kept);
});

test('with a tick object kept, nextTick stays on its fast path through GCs in an idle spell', async () => {
  const kept = await afterIdle(true);
  assert.ok(kept.literalSlots.length > 0, 'nextTick builds its tick object with computed keys');
  assert.deepEqual(
    kept.literalSlots.filter((state) => state === 'MEGAMORPHIC'),
    [],
    'no literal site of nextTick went generic',
  );
  assert.equal(kept.sameMap, 'true', "a tick object made after the GCs has the kept one's map");
  // The flaw the kept object answers, on the engine of Node 20: without it, the sites go generic.
  if (!process.versions.v8.startsWith('11.')) return;
  assert.ok(
    (await afterIdle(false)).literalSlots.includes('MEGAMORPHIC'),
    'without a kept tick object, a literal site of nextTick went generic',
  );
});
