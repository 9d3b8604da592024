import type { Scope } from './keys.js';
import type { Role } from './roles.js';

/** Statuses of error answers that the documents describe, each with a reusable response component. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 503;

/**
 * One operation of an API (`/v1`, or the admin API): the single description from which its OpenAPI
 * document, the route's validation and serialization, and the served route table are all derived. `S` and
 * `P` are the names of the API's body and parameter schemas.
 */
export interface Operation<S extends string = string, P extends string = string> {
  operationId: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path below the API's base address, in OpenAPI form (`/pets/{petId}`). */
  path: string;
  tag: string;
  summary: string;
  description: string;
  requestBody?: S;
  /** Query string parameters, validated and coerced. */
  query?: P;
  /** Path parameters, validated and coerced. */
  params?: P;
  /** The scope an API key needs for it (403 `insufficient_scope` without); none: any valid key. */
  scope?: Scope;
  /** The least role an admin token or a person needs for it (403 `insufficient_role` without); admin only. */
  role?: Role;
  /** False when a call counts against no rate limit (reading one's own key); it still gets the headers. */
  countsAgainstQuota?: false;
  /**
   * A limit of its own instead of the key's plan: `requestLogReads` for reading the request log. Its
   * rate-limit headers describe that limit (`x-rate-limit` in the document).
   */
  ownLimit?: 'requestLogReads';
  /** The body may be left out (its fields all have defaults). */
  optionalBody?: true;
  /** Stability marker (spec section 9), `x-stability` in the document. */
  stability?: 'beta' | 'experimental';
  /** Deprecated, with the sunset date of the configuration (`x-sunset`) and the deprecation headers. */
  deprecated?: true;
  success: { status: 200 | 201; description: string; schema: S; array?: boolean };
  /** The list supports `If-None-Match` and answers 304 with its `ETag`. */
  conditional?: boolean;
  /** The list pages on `limit` and `after` (or a `cursor`), with `Link: <…>; rel="next"` while more remain. */
  paged?: true;
  /** The list is also exported whole with `format=ndjson` or `format=csv`, streamed. */
  exported?: true;
  /** Error answers beyond those every operation can give (`COMMON_ERRORS`: 400, 401, 429, 500, 503). */
  errors: readonly ErrorStatus[];
}

/**
 * Error statuses every operation can answer: 400 for a query parameter it does not list (or one given twice),
 * which every operation refuses; 503 when the shared rate-limit store is unreachable and the policy is to fail
 * closed (`RATE_LIMIT_FAIL=closed`).
 */
export const COMMON_ERRORS: readonly ErrorStatus[] = [400, 401, 429, 500, 503];
