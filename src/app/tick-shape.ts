import { createHook } from 'node:async_hooks';

/**
 * One tick object, held for the life of the process: what it fixes (see keepTickShape) is per process too,
 * so this is module state rather than a dependency.
 */
let kept: object | undefined;

const noop = () => {};

/**
 * Keeps `process.nextTick` fast for the life of the process, on Node 20 (V8 11.3).
 *
 * Every nextTick makes its tick object with a literal whose first keys are computed (`[async_id_symbol]`).
 * V8 remembers the hidden class (map) such a key was added to. Once it has seen one map there, any other
 * sends the site to its generic path for good, and from then on each nextTick calls into the runtime: four
 * to five times its cost, and up to a fifth of an HTTP server's throughput (several ticks per request).
 * The maps die in a full GC that finds no tick object alive, as V8's memory reducer runs a few seconds into
 * an idle spell; the next tick makes fresh ones, and that is enough. So an instance that served a little
 * and then idled stayed slow until restarted (`%DebugPrint(process.nextTick)` under
 * `--allow-natives-syntax` shows its DefineKeyedOwnPropertyInLiteral slots MEGAMORPHIC). Holding one tick
 * object keeps its map, and so the whole chain of maps it was built through, alive.
 *
 * The object is taken from an async hook's `init`, enabled for one nextTick and then disabled, which leaves
 * nothing behind. (`executionAsyncResource()` in a tick's callback would hand it over too, but calling it
 * once routes every later native callback through a JavaScript trampoline.) The callback is a function
 * that holds nothing, so the object keeps nothing else alive. Returns the object kept, undefined where
 * Node makes no tick objects; calling again keeps nothing more.
 */
export function keepTickShape(): object | undefined {
  if (kept !== undefined) return kept;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject') kept ??= resource;
    },
  });
  hook.enable();
  try {
    process.nextTick(noop);
  } finally {
    hook.disable();
  }
  return kept;
}
