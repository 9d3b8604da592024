export { registerUsage } from './hook.js';
export {
  createUsageRecorder,
  dayOf,
  HOURLY_KEPT_DAYS,
  hourOf,
  type PendingUsage,
  USAGE_FLUSH_MS,
  type UsageRecorder,
} from './recorder.js';
export { type UsageSeries, usageSeries } from './series.js';
export type {
  DayCounts,
  DayUsage,
  DeprecatedUsage,
  HourUsage,
  KeyDayUse,
  UsageBatch,
  UsageBucket,
  UsageRepository,
} from './types.js';
