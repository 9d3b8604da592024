import { performance } from 'node:perf_hooks';
import type { Histogram } from 'prom-client';
import type { CallSpans } from '../tracing/index.js';

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
 * `target` with the named methods timed into `histogram`, labelled `<prefix><method>`, and each call in a
 * client span of its own when `spans` is given (tracing on) and a request is being traced. Every call is the
 * target's own (`this` stays the target, so classes with private fields work); other properties are read
 * through to it. A method that returns a promise is timed until it settles.
 */
export function timed<T extends object>(
  target: T,
  methods: readonly (keyof T & string)[] | 'all',
  histogram: Histogram<'call'>,
  options: { prefix?: string; spans?: CallSpans | undefined } = {},
): T {
  const { prefix = '', spans } = options;
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
    const label = `${prefix}${method}`;
    const child = histogram.labels({ call: label });
    const call = (...args: unknown[]) => {
      const started = performance.now();
      const end = spans?.(label);
      const observe = (error?: unknown) => {
        child.observe((performance.now() - started) / 1000);
        end?.(error);
      };
      let result: unknown;
      try {
        result = (original as (...args: unknown[]) => unknown).apply(target, args);
      } catch (error) {
        observe(error);
        throw error;
      }
      if (!(result instanceof Promise)) {
        observe();
        return result;
      }
      return result.then(
        (value) => {
          observe();
          return value;
        },
        (error: unknown) => {
          observe(error);
          throw error;
        },
      );
    };
    (wrapped as Record<string, unknown>)[method] = call;
  }
  return wrapped;
}
