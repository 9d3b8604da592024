export { type AnswerListener, onAnswer } from './answered.js';
export { type DownloadFormat, sendDownload } from './download.js';
export {
  answerClientGone,
  clientErrorHandler,
  handleFrameworkError,
  notFound,
  registerErrorHandling,
  sendError,
  type UnparsedAnswer,
} from './errors.js';
export { ifNoneMatchMatches, JSON_CONTENT_TYPE, registerStandardHeaders } from './headers.js';
export { BODY_LIMIT, registerJsonBodyParser } from './json-body.js';
export { registerLogger } from './logger.js';
export { cutPage, nextPageLink, pageAsked } from './paging.js';
export { requestIdFor } from './request-id.js';
export {
  type AdminHandlers,
  decorateRouteConfig,
  type HandlersOf,
  hookList,
  type OperationHandler,
  type OperationHandlers,
  type OperationRequest,
  type PreparedHandler,
  type RouteConfig,
  recordServedRoutes,
  registerOperations,
  routeConfig,
  routeTemplate,
  type ServedRouteConfig,
  type TypedHandler,
  toDocumentPath,
  toRoutePath,
} from './routes.js';
export { sendPrepared } from './send.js';
export {
  forwardedAddresses,
  isLoopbackAddress,
  overHttps,
  registerForwardedAddresses,
  transportSecurity,
} from './transport.js';
export { DESCRIBED_KEYWORDS, queryTime, registerValidators } from './validation.js';
