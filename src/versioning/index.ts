export { registerDeprecation } from './hooks.js';
export type { DeprecationPolicy } from './policy.js';
