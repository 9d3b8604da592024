export {
  COLUMNS,
  type FieldWhere,
  REQUEST_LOG_COLUMNS,
  type RequestColumn,
  type RequestField,
  type ViewField,
} from './columns.js';
export { INSTANCE, recordUnparsed, registerRequestLog } from './hook.js';
export { createRequestLog, type RequestLog } from './log.js';
export {
  batchOf,
  columnsOf,
  FIELDS,
  type RequestColumns,
  recordsOf,
  stringsOf,
  valuesOfRow,
} from './rows.js';
export type {
  Evicted,
  RequestCursor,
  RequestFilter,
  RequestLogStore,
  RequestPage,
  RequestRecord,
  RowBatch,
} from './types.js';
export { API_PATHS } from './types.js';
export {
  filterOf,
  operatorView,
  ownView,
  requestLogOff,
  sendExport,
  sendPage,
  statusRange,
} from './views.js';
