import { ConnectionError, errorFromResponse, PetstoreError } from './errors.js';
import { parseRetryAfter, type RetryPolicy, retryDelay } from './retry.js';

/** The subset of `fetch` the client uses; `globalThis.fetch` and test doubles both fit. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Waits `ms` milliseconds; rejects with `signal.reason` as soon as the signal aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Options every method accepts as its last argument. */
export interface RequestOptions {
  /** Aborts the request, and any wait between retries, with the signal's reason. */
  signal?: AbortSignal;
}

/** Options of the methods that create something (every POST). */
export interface PostOptions extends RequestOptions {
  /**
   * The `Idempotency-Key` to send (1 to 255 characters). By default a random UUID per call. Either way
   * the same key is sent on every retry of the call, so the server creates the resource at most once.
   */
  idempotencyKey?: string;
}

/** Everything the transport needs, with the defaults already applied. */
export interface TransportSettings {
  /** Absolute base address ending in the version segment, without a trailing slash. */
  baseUrl: string;
  apiKey: string;
  userAgent: string;
  fetch: FetchLike;
  maxRetries: number;
  retry: RetryPolicy;
  random: () => number;
  sleep: Sleep;
  now: () => number;
}

/** One call of an operation. */
export interface Call {
  method: 'GET' | 'POST';
  /** Path below the base address, with its parameters already substituted and encoded. */
  path: string;
  query?: Readonly<Record<string, string | number | undefined>>;
  body?: unknown;
  options?: PostOptions | undefined;
}

/** The default {@link Sleep}: a timer that an abort clears. */
export const sleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

function buildUrl(baseUrl: string, call: Call): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(call.query ?? {}))
    if (value !== undefined) search.append(name, String(value));
  const query = search.toString();
  return `${baseUrl}${call.path}${query === '' ? '' : `?${query}`}`;
}

/**
 * Built as `Headers`, which checks every value: a caller's invalid key (a line break, a character beyond
 * Latin-1) throws its TypeError here, once, instead of inside `fetch`, where it would pass for a network
 * failure and be retried.
 */
function buildHeaders(settings: TransportSettings, call: Call): Headers {
  const headers: Record<string, string> = {
    authorization: `Bearer ${settings.apiKey}`,
    accept: 'application/json',
    'user-agent': settings.userAgent,
  };
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  if (call.method === 'POST')
    headers['idempotency-key'] = call.options?.idempotencyKey ?? globalThis.crypto.randomUUID();
  return new Headers(headers);
}

type Outcome<T> =
  | { ok: true; value: T; headers: Headers }
  | { ok: false; error: PetstoreError; retryAfterMs: number | undefined };

/**
 * One attempt: the request and the whole body. A failure to connect, or a body cut off mid-way, is a
 * `ConnectionError`; an abort by the caller is rethrown as the signal's reason, never retried.
 */
async function attempt<T>(
  settings: TransportSettings,
  url: string,
  init: RequestInit,
  signal: AbortSignal | undefined,
): Promise<Outcome<T>> {
  const { fetch } = settings;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, init);
    text = await response.text();
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    // `fetch` reports network failures as a TypeError; anything else is a bug worth seeing as it is.
    if (error instanceof TypeError)
      return { ok: false, error: new ConnectionError(error), retryAfterMs: undefined };
    throw error;
  }
  if (response.ok) {
    try {
      return { ok: true, value: JSON.parse(text) as T, headers: response.headers };
    } catch {
      const requestId = response.headers.get('x-request-id') ?? undefined;
      throw new PetstoreError(`Unexpected answer: HTTP ${response.status} with a body that is not JSON`, {
        status: response.status,
        code: 'unexpected_response',
        requestId,
      });
    }
  }
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), settings.now());
  return {
    ok: false,
    error: errorFromResponse(response.status, response.headers, text, retryAfterMs),
    retryAfterMs,
  };
}

/**
 * Sends a call, retrying as DESIGN.md section 9 says: at most `maxRetries` times after the first attempt,
 * waiting `Retry-After` when the server gives one and otherwise backing off with full jitter. The body
 * and the `Idempotency-Key` are built once, so every retry is the same request.
 */
export async function send<T>(settings: TransportSettings, call: Call): Promise<T> {
  return (await sendFor<T>(settings, call)).value;
}

/** One page of a list, and the `after` of the next page when the answer's `Link` names one. */
export interface Page<T> {
  items: T[];
  nextAfter: string | undefined;
}

/** The `after` of the `rel="next"` link of a `Link` header (RFC 8288), if there is one. */
function nextAfter(link: string | null): string | undefined {
  const next = /<([^>]*)>\s*;\s*rel="?next"?/.exec(link ?? '')?.[1];
  return next === undefined
    ? undefined
    : (new URL(next, 'http://link.invalid').searchParams.get('after') ?? undefined);
}

/** Sends a call of a paged list, as `send` does, and reads where the next page starts. */
export async function sendPage<T>(settings: TransportSettings, call: Call): Promise<Page<T>> {
  const { value, headers } = await sendFor<T[]>(settings, call);
  return { items: value, nextAfter: nextAfter(headers.get('link')) };
}

async function sendFor<T>(settings: TransportSettings, call: Call): Promise<{ value: T; headers: Headers }> {
  const signal = call.options?.signal;
  const url = buildUrl(settings.baseUrl, call);
  const init: RequestInit = { method: call.method, headers: buildHeaders(settings, call) };
  if (call.body !== undefined) init.body = JSON.stringify(call.body);
  if (signal !== undefined) init.signal = signal;

  for (let retry = 0; ; retry++) {
    signal?.throwIfAborted();
    const outcome = await attempt<T>(settings, url, init, signal);
    if (outcome.ok) return { value: outcome.value, headers: outcome.headers };
    const delay =
      retry < settings.maxRetries
        ? retryDelay(outcome.error, outcome.retryAfterMs, retry, settings.retry, settings.random)
        : undefined;
    if (delay === undefined) throw outcome.error;
    await settings.sleep(delay, signal);
  }
}
