/** What a column holds. */
export type ColumnKind = 'text' | 'integer' | 'real' | 'boolean' | 'time';

/** How a column's values are kept: what a record holds, and which SQL types store it. */
interface ColumnSpec {
  /** The table's name for it, in both stores. */
  readonly column: string;
  /** `time` is milliseconds since the epoch: an integer in SQLite, a `timestamptz` in PostgreSQL. */
  readonly kind: ColumnKind;
  /** PostgreSQL's type of the column, as its table declares it (postgres/request-log.ts). */
  readonly pg: 'text' | 'smallint' | 'integer' | 'real' | 'boolean' | 'timestamptz';
  readonly nullable?: true;
  /**
   * False for a text that no other row has (a request id): a batch stores it without looking for it among
   * the strings it holds, which the key ids, routes and addresses that repeat from row to row are worth.
   */
  readonly repeats?: false;
  /** Its name in the API's views (`LoggedRequest`, `AdminLoggedRequest`) and the CSV export, if not the field's. */
  readonly view?: string;
}

/**
 * The request log's columns, described once: each field of a {@link RequestRecord}, keyed by its name, in the
 * order of the tables' columns (an object's string keys keep the order they are written in). The record's
 * type, the batch's encoding (rows.ts), the stores' SQL (storage/request-log-row.ts) and the CSV export
 * (views.ts) derive from it; the stores' `CREATE TABLE` is written out beside each store, and a test holds it
 * to this.
 */
export const REQUEST_LOG_COLUMNS = {
  /** When it was answered, in milliseconds since the epoch (`durationMs` before it, it arrived). */
  at: { column: 'at', kind: 'time', pg: 'timestamptz' },
  /** The `X-Request-Id` its client got. Unique for the ids the service makes; a client may send its own. */
  requestId: { column: 'request_id', kind: 'text', pg: 'text', repeats: false },
  /** The API key that asked (valid or expired); null for none, or a credential that is not a key of ours. */
  keyId: { column: 'key_id', kind: 'text', pg: 'text', nullable: true },
  /** The admin token that asked, itself or through a console session; null for the API's calls. */
  actor: { column: 'actor', kind: 'text', pg: 'text', nullable: true },
  /** The client address (the proxy's rule decides which); null once the client had gone. */
  client: { column: 'client', kind: 'text', pg: 'text', nullable: true },
  method: { column: 'method', kind: 'text', pg: 'text' },
  /** The route's template (`/v1/pets/{petId}`); null for a path that is no route. */
  route: { column: 'route', kind: 'text', pg: 'text', nullable: true },
  /** The path with its ids, without the query (which can hold anything a client typed). */
  path: { column: 'path', kind: 'text', pg: 'text' },
  status: { column: 'status', kind: 'integer', pg: 'smallint' },
  /** The Error body's code and message of an answer that is not 2xx or 3xx. */
  errorCode: { column: 'error_code', kind: 'text', pg: 'text', nullable: true },
  errorMessage: { column: 'error_message', kind: 'text', pg: 'text', nullable: true },
  durationMs: { column: 'duration_ms', kind: 'real', pg: 'real' },
  /** The body's bytes. */
  bytes: { column: 'bytes', kind: 'integer', pg: 'integer' },
  /** What was left of the caller's minute window after it; null without a rate-limit decision. */
  remaining: {
    column: 'remaining',
    kind: 'integer',
    pg: 'integer',
    nullable: true,
    view: 'rateLimitRemaining',
  },
  /** Answered from a stored answer under its `Idempotency-Key`. */
  replayed: { column: 'replayed', kind: 'boolean', pg: 'boolean' },
  /** Answered by a deprecated operation. */
  deprecated: { column: 'deprecated', kind: 'boolean', pg: 'boolean' },
  /** The instance that answered (host name and process id). */
  instance: { column: 'instance', kind: 'text', pg: 'text' },
  /** The `User-Agent`, cut to 256 characters. */
  userAgent: { column: 'user_agent', kind: 'text', pg: 'text', nullable: true },
} as const satisfies Record<string, ColumnSpec>;

type Columns = typeof REQUEST_LOG_COLUMNS;

/** A field of a record of the request log. */
export type RequestField = keyof Columns;

interface KindValues {
  text: string;
  integer: number;
  real: number;
  boolean: boolean;
  time: number;
}

/** What a record holds in a column. */
type ValueOf<C extends ColumnSpec> = KindValues[C['kind']] | (C extends { nullable: true } ? null : never);

/**
 * One answered request of `/v1` or `/admin/v1`, as the request log keeps it (docs/request-log.md). Never a
 * credential, a cookie or a body: only what the answer's headers and the access line already say. Its fields
 * are {@link REQUEST_LOG_COLUMNS}', documented there.
 */
export type RequestRecord = { -readonly [F in RequestField]: ValueOf<Columns[F]> };

/** The fields whose column matches `Spec`: of a kind, say. */
export type FieldWhere<Spec> = { [F in RequestField]: Columns[F] extends Spec ? F : never }[RequestField];

/** A field's name in the API's views: the field's own unless its column says another. */
export type ViewField = { [F in RequestField]: Columns[F] extends { view: infer V } ? V : F }[RequestField];

/** A column with its field, as the ordered list gives it. */
export type RequestColumn = ColumnSpec & { readonly field: RequestField };

/** Every column, in the tables' order. */
export const COLUMNS: readonly RequestColumn[] = Object.entries(REQUEST_LOG_COLUMNS).map(([field, spec]) => ({
  ...spec,
  field: field as RequestField,
}));
