import type { ErrorCode } from './contract.js';

/**
 * Codes the client itself assigns: the request never got an HTTP answer (`connection_error`), or the
 * answer was not what the contract promises (`unexpected_response`, e.g. an HTML page from a proxy).
 */
export type ClientErrorCode = 'connection_error' | 'unexpected_response';

/** Every `code` a {@link PetstoreError} can carry: the server's closed set plus the client's own two. */
export type PetstoreErrorCode = ErrorCode | ClientErrorCode;

export interface PetstoreErrorOptions {
  status: number;
  code: PetstoreErrorCode;
  requestId?: string | undefined;
  cause?: unknown;
}

/**
 * Base class of every error the client throws for a request that failed: an error answer of the API, a
 * connection failure (`status` 0) or an answer the client cannot read.
 */
export class PetstoreError extends Error {
  override readonly name: string = 'PetstoreError';
  /** The HTTP status of the answer; 0 when no answer arrived. */
  readonly status: number;
  /** The Error body's `code`, or `connection_error` / `unexpected_response`. */
  readonly code: PetstoreErrorCode;
  /** The request id from the Error body or the `X-Request-Id` header: quote it to support. */
  readonly requestId: string | undefined;

  constructor(message: string, options: PetstoreErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
    this.code = options.code;
    this.requestId = options.requestId;
  }
}

/** 400: a parameter or the body is missing a field or holds an invalid value, or the JSON is malformed. */
export class ValidationError extends PetstoreError {
  override readonly name: string = 'ValidationError';
}

/** 401: the API key is missing, unknown, revoked, of the other environment, or expired (`api_key_expired`). */
export class AuthenticationError extends PetstoreError {
  override readonly name: string = 'AuthenticationError';
}

/** 403: the API key lacks the scope the operation needs (`insufficient_scope`). */
export class PermissionDeniedError extends PetstoreError {
  override readonly name: string = 'PermissionDeniedError';
}

/** 404: the resource does not exist. */
export class NotFoundError extends PetstoreError {
  override readonly name: string = 'NotFoundError';
}

/**
 * 409 and 422: the request conflicts with the current state (`pet_not_available`), its `Idempotency-Key`
 * is still in flight (`idempotency_key_in_use`) or was used with another body (`idempotency_key_reused`).
 */
export class ConflictError extends PetstoreError {
  override readonly name: string = 'ConflictError';
}

/** 410: the endpoint is past its sunset date (`endpoint_sunset`). */
export class GoneError extends PetstoreError {
  override readonly name: string = 'GoneError';
}

/** 429: the rate limit is exhausted (`rate_limit_exceeded`) or the key is banned (`api_key_banned`). */
export class RateLimitError extends PetstoreError {
  override readonly name: string = 'RateLimitError';
  /** The wait the server asked for in `Retry-After`, in milliseconds; undefined when absent or invalid. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: PetstoreErrorOptions & { retryAfterMs: number | undefined }) {
    super(message, options);
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** 5xx: the server failed or a backing service is unavailable. */
export class ServerError extends PetstoreError {
  override readonly name: string = 'ServerError';
}

/** No HTTP answer: DNS, refused or reset connection, TLS failure. `cause` holds the underlying error. */
export class ConnectionError extends PetstoreError {
  override readonly name: string = 'ConnectionError';

  constructor(cause: unknown) {
    const detail = cause instanceof Error ? `: ${cause.message}` : '';
    super(`Connection to the Pet Store API failed${detail}`, { status: 0, code: 'connection_error', cause });
  }
}

/** Whether a value is an error thrown by this client (any subclass). */
export function isPetstoreError(value: unknown): value is PetstoreError {
  return value instanceof PetstoreError;
}

interface ErrorBodyShape {
  code: ErrorCode;
  message: string;
  requestId?: string;
}

/** The server's Error body `{code, message, status, requestId?}`; anything else is not trusted. */
function asErrorBody(text: string): ErrorBodyShape | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { code, message, status, requestId } = value as Record<string, unknown>;
  if (typeof code !== 'string' || typeof message !== 'string' || typeof status !== 'number') return undefined;
  // The code set is closed on the server; the client trusts the server it was built with.
  const body: ErrorBodyShape = { code: code as ErrorCode, message };
  if (typeof requestId === 'string') body.requestId = requestId;
  return body;
}

/**
 * The typed error for a non-2xx answer. The class follows the HTTP status (not the body), so even a
 * proxy's HTML 502 becomes a `ServerError`, with code `unexpected_response`.
 */
export function errorFromResponse(
  status: number,
  headers: Headers,
  text: string,
  retryAfterMs: number | undefined,
): PetstoreError {
  const body = asErrorBody(text);
  const options: PetstoreErrorOptions = {
    status,
    code: body?.code ?? 'unexpected_response',
    requestId: body?.requestId ?? headers.get('x-request-id') ?? undefined,
  };
  const message = body?.message ?? `Unexpected answer: HTTP ${status} without an Error body`;
  if (status === 400) return new ValidationError(message, options);
  if (status === 401) return new AuthenticationError(message, options);
  if (status === 403) return new PermissionDeniedError(message, options);
  if (status === 404) return new NotFoundError(message, options);
  if (status === 409 || status === 422) return new ConflictError(message, options);
  if (status === 410) return new GoneError(message, options);
  if (status === 429) return new RateLimitError(message, { ...options, retryAfterMs });
  if (status >= 500 && status <= 599) return new ServerError(message, options);
  return new PetstoreError(message, options);
}
