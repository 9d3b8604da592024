import { performance } from 'node:perf_hooks';
import type { Histogram } from 'prom-client';

/** Every method of an object, its class's included (not Object's). */
function methodsOf(target: object): string[] {
  const names = new Set<string>();
  for (
    let at: object | null = target;
    at !== null && at !== Object.prototype;
    at = Object.getPrototypeOf(at)
  ) {
    for (const name of Object.getOwnPropertyNames(at)) {
      if (name !== 'constructor' && typeof (target as Record<string, unknown>)[name] === 'function')
        names.add(name);
    }
  }
  return [...names];
}

/**
 * `target` with the named methods timed into `histogram`, labelled `<prefix><method>`. Every call is the
 * target's own (`this` stays the target, so classes with private fields work); other properties are read
 * through to it. A method that returns a promise is timed until it settles.
 */
export function timed<T extends object>(
  target: T,
  methods: readonly (keyof T & string)[] | 'all',
  histogram: Histogram<'call'>,
  prefix = '',
): T {
  const wrapped = Object.create(target) as T;
  for (const name of methodsOf(target)) {
    const own = (target as Record<string, (...args: unknown[]) => unknown>)[name] as (
      ...args: unknown[]
    ) => unknown;
    (wrapped as Record<string, unknown>)[name] = own.bind(target);
  }
  for (const method of methods === 'all' ? (methodsOf(target) as (keyof T & string)[]) : methods) {
    const original = target[method];
    if (typeof original !== 'function') continue;
    const child = histogram.labels({ call: `${prefix}${method}` });
    const call = (...args: unknown[]) => {
      const started = performance.now();
      const observe = () => child.observe((performance.now() - started) / 1000);
      const result = (original as (...args: unknown[]) => unknown).apply(target, args);
      if (result instanceof Promise) return result.finally(observe);
      observe();
      return result;
    };
    (wrapped as Record<string, unknown>)[method] = call;
  }
  return wrapped;
}
