export { EXPORT_TIMEOUT_MS } from './exporter.js';
export {
  type CallSpans,
  createTracing,
  MAX_SPAN_PATH,
  type Tracing,
  type TracingOptions,
} from './tracing.js';
