import { executionAsyncResource } from 'node:async_hooks';

/** One tick object, held for the life of the process; see keepTickShape. */
let kept: object | undefined;

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
 * The tick object being run is the execution async resource of its callback. Resolves with the object
 * kept; call before serving. Calling again keeps nothing more, and an engine without the flaw loses one
 * small object.
 */
export function keepTickShape(): Promise<object> {
  return new Promise((resolve) => {
    process.nextTick(() => {
      kept ??= executionAsyncResource();
      resolve(kept);
    });
  });
}
