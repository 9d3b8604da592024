export { type CallSpans, createTracing, type Tracing, type TracingOptions } from './tracing.js';
