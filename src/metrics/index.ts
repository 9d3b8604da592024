export { registerRequestMetrics } from './hook.js';
export { createMetrics, type Metrics, type PoolStats } from './metrics.js';
export { timed } from './timed.js';
