export { handleClientError, handleError, notFound, registerErrorHandling, sendError } from './errors.js';
export { ifNoneMatchMatches, JSON_CONTENT_TYPE } from './headers.js';
export { BODY_LIMIT, registerJsonBodyParser } from './json-body.js';
export { isLocalRequest } from './local.js';
export { newRequestId, requestIdFor } from './request-id.js';
export {
  hookList,
  type OperationHandler,
  type OperationHandlers,
  type RouteConfig,
  registerOperations,
  toRoutePath,
} from './routes.js';
export { sendPrepared } from './send.js';
export { DESCRIBED_KEYWORDS, registerValidators } from './validation.js';
