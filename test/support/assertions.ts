import assert from 'node:assert/strict';
import type { JsonResponse } from './server.js';

/**
 * Asserts the answer is an Error body (`{code, message, status, requestId}`, nothing else) with the given
 * status and code, whose `status` equals the HTTP status and whose `requestId` equals `X-Request-Id`.
 */
export function assertError(response: JsonResponse, status: number, code?: string): void {
  assert.equal(response.status, status, `status of ${response.text}`);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  assertErrorShape(response);
  if (code !== undefined) assert.equal((response.body as { code: string }).code, code);
}

/** Asserts only the shape: the Error body of the spec, consistent with the HTTP status and headers. */
export function assertErrorShape(response: JsonResponse): void {
  const body = response.body as Record<string, unknown>;
  assert.ok(body !== null && typeof body === 'object', `an Error body, got ${response.text}`);
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'requestId', 'status']);
  assert.match(body.code as string, /^[a-z]+(_[a-z]+)*$/);
  assert.equal(typeof body.message, 'string');
  assert.ok((body.message as string).length > 0);
  assert.equal(body.status, response.status);
  assert.equal(body.requestId, response.headers.get('x-request-id'));
  assert.doesNotMatch(response.text, /at .+\(.+:\d+:\d+\)|node_modules|\/src\/|SQLITE|SELECT |INSERT /);
}

/** Asserts the three `X-RateLimit-*` headers are integers with 0 <= Remaining <= Limit, and the draft's two. */
export function assertRateLimitHeaders(response: JsonResponse): {
  limit: number;
  remaining: number;
  reset: number;
} {
  const read = (name: string) => {
    const value = response.headers.get(name);
    assert.match(value ?? '', /^\d+$/, `${name} on a ${response.status}`);
    return Number(value);
  };
  const limit = read('x-ratelimit-limit');
  const remaining = read('x-ratelimit-remaining');
  const reset = read('x-ratelimit-reset');
  assert.ok(remaining >= 0 && remaining <= limit, `0 <= ${remaining} <= ${limit}`);
  // A delta is seconds to a window's end, a day at most; a Unix time is past 2001. Not against this
  // machine's clock: a test's server may run on a fake one, fixed on a day that has since passed.
  assert.ok(reset > 1_000_000_000, 'Reset is a Unix time, not a delta');
  assert.match(response.headers.get('ratelimit-policy') ?? '', /^"minute";q=\d+;w=60, "day";q=\d+;w=86400$/);
  assert.match(response.headers.get('ratelimit') ?? '', /^"(minute|day)";r=\d+;t=\d+$/);
  return { limit, remaining, reset };
}

/**
 * Asserts a request spent nothing of its key's minute: `X-RateLimit-Remaining` is still `before`, or, should
 * the minute have turned since, the whole limit. On Redis the window follows Redis's own time, which a test's
 * clock does not move, so a minute may turn between any two requests.
 */
export function assertNothingSpent(response: JsonResponse, before: string | null, message: string): void {
  const unspent = [before, response.headers.get('x-ratelimit-limit')];
  assert.ok(unspent.includes(response.headers.get('x-ratelimit-remaining')), message);
}

/**
 * Polls `check` until it returns a value other than undefined (or false), every 20 ms for at most
 * `timeoutMs`, and returns that value; fails naming `what` after that. For outcomes that arrive on their own
 * schedule (a batched log line, a reload), without betting on how long they take.
 */
export async function eventually<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) assert.fail(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
