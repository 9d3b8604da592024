import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_PREFIX, V1_API } from '../contract/index.js';
import { ApiError, ERROR_STATUS, type ErrorCode, errorBody, UnavailableError } from '../errors/index.js';
import { JSON_CONTENT_TYPE, STANDARD_HEADERS } from './headers.js';
import { BODY_LIMIT } from './json-body.js';
import { newRequestId } from './request-id.js';
import { describeValidationError } from './validation.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The code and message of the Error body the request was answered with; null for any other answer. */
    errorAnswer: { code: ErrorCode; message: string } | null;
  }
}

/** Fastify's own errors that are the client's fault, mapped to our codes. */
const FRAMEWORK_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    message: 'Request bodies must be sent as Content-Type: application/json',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'payload_too_large',
    message: `Request body is larger than ${BODY_LIMIT} bytes`,
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'malformed_request',
    message: 'Content-Length does not match the request body',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'validation_failed', message: 'Request body is required' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'malformed_json', message: 'Request body is not valid JSON' },
  FST_ERR_BAD_URL: { code: 'malformed_request', message: 'The request URL is not valid' },
  FST_ERR_ASYNC_CONSTRAINT: { code: 'malformed_request', message: 'The request cannot be routed' },
};

/** Sends the Error body for a code, with the headers that belong to it. */
export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  code: ErrorCode,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): FastifyReply {
  request.errorAnswer = { code, message };
  return reply
    .code(ERROR_STATUS[code])
    .headers(headers)
    .type(JSON_CONTENT_TYPE)
    .send(JSON.stringify(errorBody(code, message, request.id)));
}

/**
 * The status of a request its client abandoned before it was read whole: nginx's 499 "Client Closed
 * Request", the convention log readers know. Nobody receives it; the access log, the metrics and the key's
 * usage record it as the client's doing, never as a server error.
 */
export const CLIENT_CLOSED_REQUEST = 499;

/** Whether `error` is Node's for a request whose connection closed before its body was read. */
function isClientAbort(error: FastifyError, request: FastifyRequest): boolean {
  return error.code === 'ECONNRESET' && request.raw.readableAborted;
}

/**
 * Ends a request whose client closed its connection before the request was read whole: 499, logged at info.
 * A hook that waited (for Redis, say) calls it when the client left meanwhile, as Fastify would otherwise
 * wait for a body that will never come, and the request would be recorded nowhere.
 */
export function answerClientGone(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  request.server.logger.info(
    { reqId: request.id },
    'the client closed the connection before its request was read',
  );
  return reply.code(CLIENT_CLOSED_REQUEST).send();
}

/**
 * The one error handler: our errors, validation and framework errors each become their Error body; a client
 * gone mid-request is a 499 logged at info; anything else is logged with its stack and answered with a
 * generic 500 that shows no internals.
 */
export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof ApiError) return sendError(request, reply, error.code, error.message, error.headers);
  if (isClientAbort(error, request)) return answerClientGone(request, reply);
  if (error instanceof UnavailableError) {
    // The outage itself is logged once by storage (OutageLog), not once a request: each is in the access log.
    return sendError(request, reply, 'service_unavailable', `${error.message}; retry shortly`, {
      'retry-after': '1',
    });
  }
  if (error.validation !== undefined) {
    const first = error.validation[0] as ErrorObject | undefined;
    const context = error.validationContext ?? 'body';
    // No body at all, none sent or an empty one, whatever type it declared: the operation needs one.
    const message =
      first === undefined
        ? 'The request is invalid'
        : context === 'body' && request.body === undefined
          ? 'Request body is required'
          : describeValidationError(first, context);
    return sendError(request, reply, 'validation_failed', message);
  }
  const known = error.code === undefined ? undefined : FRAMEWORK_ERRORS[error.code];
  if (known !== undefined) return sendError(request, reply, known.code, known.message);
  request.server.logger.error({ err: error, reqId: request.id }, 'unhandled error');
  return sendError(request, reply, 'internal_error', 'Internal server error');
}

/** The API's paths as patterns (`/pets/{petId}` matches `/pets/7`), to tell a path that lacks its `/v1`. */
const API_PATHS = V1_API.operations.map(
  (operation) => new RegExp(`^${operation.path.replace(/\{\w+\}/g, '[^/]+')}$`),
);

/** Where a client that missed the API may have meant to go, or nothing to add. */
function hintFor(path: string): string {
  if (path === '/' || path === '') {
    return `: the API is under ${API_PREFIX} (GET ${API_PREFIX}/categories, with a key), its reference at /docs`;
  }
  const bare = path.length > 1 ? path.replace(/\/+$/, '') : path;
  const inApi = bare.startsWith(`${API_PREFIX}/`);
  const known = API_PATHS.some((pattern) => pattern.test(inApi ? bare.slice(API_PREFIX.length) : bare));
  if (!known) return '';
  if (!inApi) {
    return `: the API is under ${API_PREFIX}, at ${API_PREFIX}${bare} (its reference is at /docs)`;
  }
  // Paths have no trailing slash: `/v1/categories/` is not `/v1/categories`.
  return bare === path ? '' : `: paths end without a slash, ${bare}`;
}

/** Whether a request asks for a page (a browser's navigation), not data. */
const wantsPage = (request: FastifyRequest) =>
  (request.method === 'GET' || request.method === 'HEAD') &&
  (request.headers.accept?.includes('text/html') ?? false);

/** The 404 answer for an unknown path, pointing at the API when the path is one of it without `/v1`. */
export function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = request.url.split('?')[0] ?? '';
  // Someone who typed the server's address into a browser meant the reference.
  if (path === '/' && wantsPage(request)) return reply.redirect('/docs', 302);
  // Long paths are not echoed whole.
  const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
  return sendError(request, reply, 'not_found', `No route ${request.method} ${shown}${hintFor(path)}`);
}

/** Registers the error handler and the 404 answer for every unknown path. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.decorateRequest('errorAnswer', null);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(notFound);
}

/**
 * Answers errors Fastify meets before routing (a URL it cannot decode), which skip every hook: with the
 * standard headers the hooks would have set, and the Error body.
 */
export function handleFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  reply.header('x-request-id', request.id).headers(STANDARD_HEADERS);
  return handleError(error, request, reply);
}

/** An answer given to a request that Node's HTTP parser refused, before the app saw it. */
export interface UnparsedAnswer {
  requestId: string;
  status: number;
  code: ErrorCode;
  message: string;
  /** The bytes the parser had read, when it kept them. */
  rawPacket: Buffer | undefined;
  client: string | undefined;
  /** The Error body's bytes. */
  bytes: number;
}

/**
 * What to tell a client whose request Node's parser (llhttp) refused, by its error code: what is wrong and
 * what to do. A key pasted with its line break is the common case: the header then ends early and the rest
 * of the key is a line that is no header.
 */
function unparsedMessage(code: string | undefined): string {
  switch (code) {
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
    case 'HPE_INVALID_EOF_STATE':
      return 'The request is not valid HTTP: a header is malformed, such as a value with a line break or a control character in it (a key or token pasted with its newline?). Send every header on one line, and copy the value again without the break';
    case 'HPE_INVALID_METHOD':
      return 'The request is not valid HTTP: its method is not one HTTP knows. Check the client (or proxy) that sent it';
    case 'HPE_INVALID_URL':
      return 'The request is not valid HTTP: its target is not a valid path. Percent-encode spaces and other characters a URL cannot hold';
    case 'HPE_INVALID_VERSION':
      return 'The request is not valid HTTP: its version is not HTTP/1.0 or HTTP/1.1 (HTTP/2 needs TLS, through the TLS front)';
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CHUNK_SIZE':
      return "The request is not valid HTTP: its body's length is contradictory or malformed (Content-Length with Transfer-Encoding, or a bad chunk size). Send one of the two, well formed";
    default:
      return 'The request is not valid HTTP/1.1. Check the client (or proxy) that sent it, and quote the requestId if you ask for help';
  }
}

/**
 * Makes the handler of requests that Node's HTTP parser refused before Fastify saw them (bad framing,
 * oversized headers, slow clients): it answers with the same Error body, closes the connection, and tells
 * `onAnswered` (the request log), so that the id in that body can be found like any other.
 */
export function clientErrorHandler(
  onAnswered: (answer: UnparsedAnswer) => void,
): (error: Error & { code?: string; rawPacket?: unknown }, socket: Socket) => void {
  return (error, socket) => {
    if (!socket.writable || (error.code === 'ECONNRESET' && socket.destroyed)) {
      socket.destroy();
      return;
    }
    const code: ErrorCode =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 'headers_too_large'
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'request_timeout'
          : 'malformed_request';
    const requestId = newRequestId();
    const message =
      code === 'headers_too_large'
        ? 'Request headers are too large'
        : code === 'request_timeout'
          ? 'The request was not received in time'
          : unparsedMessage(error.code);
    const body = JSON.stringify(errorBody(code, message, requestId));
    const status = ERROR_STATUS[code];
    const headers = {
      'content-type': JSON_CONTENT_TYPE,
      'content-length': String(Buffer.byteLength(body)),
      'x-request-id': requestId,
      ...STANDARD_HEADERS,
      connection: 'close',
    };
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    const client = socket.remoteAddress;
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join('')}\r\n${body}`);
    onAnswered({
      requestId,
      status,
      code,
      message,
      // Node gives a Buffer; Fastify's types say otherwise.
      rawPacket: Buffer.isBuffer(error.rawPacket) ? error.rawPacket : undefined,
      client,
      bytes: Buffer.byteLength(body),
    });
  };
}
