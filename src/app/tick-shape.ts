import { executionAsyncResource } from 'node:async_hooks';

/** One tick object, held for the life of the process; see keepTickShape. */
let kept: object | undefined;

/**
 * Keeps `process.nextTick` fast for the life of the process, on Node 20 (V8 11.3).
 *
 * Every nextTick makes its tick object with a literal whose first keys are computed (`[async_id_symbol]`).
 * V8 remembers the hidden class (map) such a key was added to. Once it has seen one map there, any other
 * sends the site to its generic path for good, and from then on each nextTick calls into the runtime: about
 * four times its cost, and 20-30% of a whole HTTP request (node:http makes several ticks per request).
 * The maps die in a full GC that finds no tick object alive, the next tick makes fresh ones, and that is
 * enough. So an instance that serves a few requests and then idles (V8's memory reducer collects after
 * about 10 s) used to stay slow until restarted; so did some freshly started ones. Holding one tick object
 * keeps its map, and so the whole chain of maps it was built through, alive.
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
