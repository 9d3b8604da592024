export { registerUsage } from './hook.js';
export { createUsageRecorder, dayOf, USAGE_FLUSH_MS, type UsageRecorder } from './recorder.js';
export type { DayCounts, DayUsage, DeprecatedUsage, UsageBatch, UsageRepository } from './types.js';
