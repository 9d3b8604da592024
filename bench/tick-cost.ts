/**
 * The cost of `process.nextTick`, warm and then after full GCs that find no tick object alive (what V8's
 * memory reducer does to an idle server), in a process that keeps a tick object (`keepTickShape`, as the
 * service does) or keeps none (as a bare `node:http` server). Both load the same modules.
 * See src/app/tick-shape.ts.
 *
 * Usage: node --expose-gc tick-cost.js kept|bare. Prints one JSON line: `{"warmNs": N, "idleNs": N}`.
 */
import { keepTickShape } from '../src/app/index.js';

const TICKS = 2_000_000;

/** Runs `count` ticks one after another, each scheduling the next. */
function chain(count: number): Promise<void> {
  return new Promise((resolve) => {
    let left = count;
    const step = () => {
      left -= 1;
      if (left === 0) resolve();
      else process.nextTick(step);
    };
    process.nextTick(step);
  });
}

/** Nanoseconds per tick over a chain, after a shorter one that lets V8 optimize what it runs. */
async function nsPerTick(): Promise<number> {
  await chain(TICKS / 10);
  const started = process.hrtime.bigint();
  await chain(TICKS);
  return Number(process.hrtime.bigint() - started) / TICKS;
}

const mode = process.argv[2];
if (mode !== 'kept' && mode !== 'bare') {
  process.stderr.write('usage: node --expose-gc tick-cost.js kept|bare\n');
  process.exit(2);
}
const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) {
  process.stderr.write('tick-cost.js needs node --expose-gc\n');
  process.exit(2);
}
if (mode === 'kept') keepTickShape();
const warmNs = await nsPerTick();
// Idle: full collections from a timer's callback, when no tick is queued or running.
for (let i = 0; i < 3; i += 1) {
  await new Promise((resolve) => setTimeout(resolve, 10));
  collect();
}
const idleNs = await nsPerTick();
process.stdout.write(`${JSON.stringify({ warmNs, idleNs })}\n`);
