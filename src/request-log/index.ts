export { INSTANCE, registerRequestLog } from './hook.js';
export { createRequestLog, FLUSH_MS, keptFrom, MAX_PENDING, type RequestLog } from './log.js';
export type {
  RequestCursor,
  RequestFilter,
  RequestLogStore,
  RequestPage,
  RequestRecord,
} from './types.js';
export { filterOf, operatorView, ownView, requestLogOff, sendExport, sendPage } from './views.js';
