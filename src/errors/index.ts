/**
 * The closed set of error codes the API answers with, and the HTTP status of each (DESIGN.md section 3).
 * The table is a `Record<ErrorCode, number>` so that adding a code without its status does not compile.
 */
export type ErrorCode =
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'api_key_expired'
  | 'insufficient_scope'
  | 'insufficient_role'
  | 'cross_origin_request'
  | 'https_required'
  | 'token_signin_off'
  | 'key_revoked'
  | 'key_rotated'
  | 'key_expired'
  | 'domain_conflict'
  | 'delivery_in_progress'
  | 'validation_failed'
  | 'malformed_json'
  | 'malformed_request'
  | 'request_timeout'
  | 'headers_too_large'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'not_found'
  | 'method_not_allowed'
  | 'misdirected_request'
  | 'rate_limit_exceeded'
  | 'api_key_banned'
  | 'endpoint_sunset'
  | 'pet_not_available'
  | 'idempotency_key_reused'
  | 'idempotency_key_in_use'
  | 'service_unavailable'
  | 'internal_error';

export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  validation_failed: 400,
  malformed_json: 400,
  malformed_request: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  api_key_expired: 401,
  insufficient_scope: 403,
  insufficient_role: 403,
  cross_origin_request: 403,
  https_required: 403,
  token_signin_off: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  idempotency_key_in_use: 409,
  pet_not_available: 409,
  key_revoked: 409,
  key_rotated: 409,
  key_expired: 409,
  domain_conflict: 409,
  delivery_in_progress: 409,
  endpoint_sunset: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  misdirected_request: 421,
  idempotency_key_reused: 422,
  headers_too_large: 431,
  rate_limit_exceeded: 429,
  api_key_banned: 429,
  internal_error: 500,
  service_unavailable: 503,
};

/** What each code means, for the error table of the OpenAPI document and the reference page. */
export const ERROR_MEANING: Readonly<Record<ErrorCode, string>> = {
  validation_failed:
    'A parameter or the request body is missing a required field or holds an invalid value, or a query parameter is unknown or repeated.',
  malformed_json: 'The request body is not valid JSON, or not UTF-8.',
  malformed_request: 'The request is not valid HTTP (request line, header syntax or framing).',
  request_timeout: 'The client took too long to send the request headers or body.',
  headers_too_large: 'The request headers are too large.',
  missing_api_key: 'No API key was sent: use `Authorization: Bearer <API_KEY>`.',
  invalid_api_key: 'The API key is unknown, revoked, malformed or belongs to another environment.',
  api_key_expired:
    'The API key is past its expiry, or the grace period of its rotation (then the key that replaced it works).',
  insufficient_scope: 'The API key lacks the scope the operation needs; `WWW-Authenticate` names it.',
  insufficient_role:
    'The admin token or the person signed in lacks the role the operation needs; the message names it (admin API only).',
  cross_origin_request:
    'A request that changes something with a console session came from another origin (admin API only).',
  https_required:
    'A console session starts only over HTTPS, or over plain HTTP from this machine (admin API only).',
  token_signin_off:
    'Console sign-in with an admin token is turned off (`CONSOLE_TOKEN_SIGNIN=off`): people sign in with the identity provider (admin API only).',
  key_revoked: 'The API key is revoked: it can no longer be changed or rotated.',
  key_rotated:
    'The API key was rotated: it cannot be rotated again, nor its plan or limits changed; the message names its successor.',
  key_expired: 'The API key is past its expiry: it cannot be rotated.',
  domain_conflict:
    'The domain is already added, or it is declared in the config file and changes only there.',
  delivery_in_progress:
    'An attempt of this webhook delivery is under way: replay it once the attempt is in its log.',
  not_found: 'No resource or route exists at this path.',
  method_not_allowed: 'The path exists but does not accept this method; see the `Allow` header.',
  idempotency_key_in_use: 'A request with the same `Idempotency-Key` is still being processed.',
  endpoint_sunset: 'The endpoint has passed its sunset date and is gone.',
  pet_not_available: 'The pet cannot be ordered: it is pending or sold.',
  payload_too_large: 'The request body is larger than 16 KiB.',
  unsupported_media_type: 'The request body must be sent as `Content-Type: application/json`.',
  idempotency_key_reused: 'The `Idempotency-Key` was already used with a different request body.',
  misdirected_request: 'The `Host` is not a domain this service publishes its reference at.',
  rate_limit_exceeded: 'The rate limit of the API key (or of the client address) is exhausted.',
  api_key_banned: 'The API key kept sending after 429 answers and is temporarily banned.',
  internal_error: 'An unexpected error occurred on the server.',
  service_unavailable: 'A backing service is unreachable; retry later.',
};

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** The body of every error answer (spec section 2, plus the request id of DESIGN.md section 3). */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  status: number;
  requestId?: string;
}

/** An error the API answers with on purpose: its code decides the status. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra response headers that belong to this error, such as `Allow` or `Retry-After`. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message: string, headers: Readonly<Record<string, string>> = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.headers = headers;
  }
}

/** An error class a capability throws when it refuses, and the code the API answers it with. */
export type Refusal = readonly [refused: abstract new (...args: never[]) => Error, code: ErrorCode];

/**
 * How a handler answers the refusals of the capability it calls: the returned function runs `work`, and
 * throws an error of one of `refusals`' classes again as the `ApiError` of its code, with its message; any
 * other error as it is.
 */
export function answeringRefusals(refusals: readonly Refusal[]) {
  return async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      for (const [refused, code] of refusals) {
        if (error instanceof refused) throw new ApiError(code, error.message);
      }
      throw error;
    }
  };
}

/** Builds the Error body for a code. */
export function errorBody(code: ErrorCode, message: string, requestId?: string): ErrorBody {
  const body: ErrorBody = { code, message, status: ERROR_STATUS[code] };
  if (requestId !== undefined) body.requestId = requestId;
  return body;
}

/**
 * A backing service (the database) cannot be reached or did not answer in time: the request was fine, and
 * may succeed when retried. The API answers it 503 `service_unavailable` with `Retry-After`.
 */
export class UnavailableError extends Error {
  override name = 'UnavailableError';
}
