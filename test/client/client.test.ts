import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import {
  AuthenticationError,
  type ClientOptions,
  ConflictError,
  ConnectionError,
  createClient,
  type ErrorCode,
  type FetchLike,
  GoneError,
  isPetstoreError,
  NotFoundError,
  normalizeBaseUrl,
  PetstoreError,
  RateLimitError,
  ServerError,
  type Sleep,
  ValidationError,
} from '@petstore-api/client';
import fc from 'fast-check';
import { backoffDelay, parseRetryAfter } from '../../packages/client/src/retry.js';
import { sleep as timerSleep } from '../../packages/client/src/transport.js';

const BASE = 'https://api.example.test/v1';
const API_KEY = 'ps_test_abc123';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Recorded {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** A step of the script: an answer, or an error for `fetch` to reject with. */
type Step = Response | Error;

/** A `fetch` that answers from a queue and records every request; no network. */
function scriptedFetch(steps: Step[]) {
  const requests: Recorded[] = [];
  const fetch: FetchLike = async (url, init) => {
    requests.push({
      url,
      method: init.method ?? 'GET',
      headers: Object.fromEntries(new Headers(init.headers)),
      body: typeof init.body === 'string' ? init.body : undefined,
    });
    const step = steps.shift();
    // Not a TypeError, so the client does not mistake a test bug for a connection failure.
    if (step === undefined) throw new RangeError('the script has no answer left');
    if (step instanceof Error) throw step;
    return step;
  };
  return { fetch, requests };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

function failure(
  status: number,
  code: ErrorCode,
  extra: { retryAfter?: string; requestId?: string; headerRequestId?: string } = {},
): Response {
  const body: Record<string, unknown> = { code, message: `failed: ${code}`, status };
  if (extra.requestId !== undefined) body.requestId = extra.requestId;
  const headers: Record<string, string> = {};
  if (extra.retryAfter !== undefined) headers['retry-after'] = extra.retryAfter;
  if (extra.headerRequestId !== undefined) headers['x-request-id'] = extra.headerRequestId;
  return json(status, body, headers);
}

const networkError = () => new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
const CATEGORY = { id: 1, name: 'Dog' };

/** A client over a scripted fetch, whose waits are recorded instead of slept. */
function setup(steps: Step[], options: Partial<ClientOptions> = {}) {
  const { fetch, requests } = scriptedFetch(steps);
  const delays: number[] = [];
  const sleep: Sleep = async (ms, signal) => {
    signal?.throwIfAborted();
    delays.push(ms);
  };
  const client = createClient({ baseUrl: BASE, apiKey: API_KEY, fetch, sleep, random: () => 1, ...options });
  return { client, requests, delays };
}

describe('requests', () => {
  it('sends the bearer key, Accept and User-Agent, and no body headers on a GET', async () => {
    const { client, requests } = setup([json(200, [CATEGORY])]);
    assert.deepEqual(await client.listCategories(), [CATEGORY]);
    assert.equal(requests.length, 1);
    const [request] = requests;
    assert.equal(request?.url, `${BASE}/categories`);
    assert.equal(request?.method, 'GET');
    assert.equal(request?.headers.authorization, `Bearer ${API_KEY}`);
    assert.equal(request?.headers.accept, 'application/json');
    assert.equal(request?.headers['user-agent'], 'petstore-client');
    assert.equal(request?.headers['content-type'], undefined);
    assert.equal(request?.headers['idempotency-key'], undefined);
    assert.equal(request?.body, undefined);
  });

  it('sends a custom User-Agent', async () => {
    const { client, requests } = setup([json(200, [])], { userAgent: 'shop/2.0' });
    await client.listCategories();
    assert.equal(requests[0]?.headers['user-agent'], 'shop/2.0');
  });

  it('maps every operation to its method, path, query and body', async () => {
    const pet = { id: 7, name: 'Rex', categoryId: 1, status: 'available' };
    const order = { id: 3, petId: 7, quantity: 1, status: 'placed', createdAt: '2026-01-01T00:00:00.000Z' };
    const { client, requests } = setup([
      json(201, CATEGORY),
      json(200, [pet]),
      json(200, [pet]),
      json(201, pet),
      json(200, pet),
      json(200, [order]),
      json(200, []),
      json(201, order),
    ]);
    assert.deepEqual(await client.createCategory({ name: 'Dog' }), CATEGORY);
    assert.deepEqual(await client.listPets(), [pet]);
    assert.deepEqual(await client.listPets({ categoryId: 1, status: 'available' }), [pet]);
    assert.deepEqual(await client.createPet({ name: 'Rex', categoryId: 1 }), pet);
    assert.deepEqual(await client.getPetById(7), pet);
    assert.deepEqual(await client.listOrders(), [order]);
    assert.deepEqual(await client.listOrders({ status: 'delivered' }), []);
    assert.deepEqual(await client.placeOrder({ petId: 7, quantity: 1 }), order);
    assert.deepEqual(
      requests.map(({ method, url, body }) => [method, url, body]),
      [
        ['POST', `${BASE}/categories`, '{"name":"Dog"}'],
        ['GET', `${BASE}/pets`, undefined],
        ['GET', `${BASE}/pets?categoryId=1&status=available`, undefined],
        ['POST', `${BASE}/pets`, '{"name":"Rex","categoryId":1}'],
        ['GET', `${BASE}/pets/7`, undefined],
        ['GET', `${BASE}/store/orders`, undefined],
        ['GET', `${BASE}/store/orders?status=delivered`, undefined],
        ['POST', `${BASE}/store/orders`, '{"petId":7,"quantity":1}'],
      ],
    );
  });

  it('encodes the path parameter so it cannot leave its segment', async () => {
    const { client, requests } = setup([failure(400, 'validation_failed')]);
    await assert.rejects(client.getPetById('../categories' as unknown as number), ValidationError);
    assert.equal(requests[0]?.url, `${BASE}/pets/..%2Fcategories`);
  });

  it('sends a JSON body with Content-Type and a UUID Idempotency-Key on every POST', async () => {
    const { client, requests } = setup([json(201, CATEGORY), json(201, CATEGORY)]);
    await client.createCategory({ name: 'Dog' });
    await client.createCategory({ name: 'Dog' });
    const [first, second] = requests;
    assert.equal(first?.headers['content-type'], 'application/json');
    assert.match(first?.headers['idempotency-key'] ?? '', UUID);
    assert.match(second?.headers['idempotency-key'] ?? '', UUID);
    assert.notEqual(first?.headers['idempotency-key'], second?.headers['idempotency-key']);
  });
});

describe('base address', () => {
  it('accepts the origin or the versioned address, with or without a trailing slash', () => {
    const cases: [string | URL, string][] = [
      ['https://api.example.test', BASE],
      ['https://api.example.test/', BASE],
      ['https://api.example.test/v1', BASE],
      ['https://api.example.test/v1/', BASE],
      [new URL('https://api.example.test/v1'), BASE],
      ['http://127.0.0.1:8080', 'http://127.0.0.1:8080/v1'],
      ['https://example.test/petstore', 'https://example.test/petstore/v1'],
      ['https://example.test/petstore/v1//', 'https://example.test/petstore/v1'],
    ];
    for (const [input, expected] of cases) assert.equal(normalizeBaseUrl(input), expected, String(input));
  });

  it('sends requests under /v1 whichever form was given', async () => {
    for (const baseUrl of ['https://api.example.test', 'https://api.example.test/v1/']) {
      const { client, requests } = setup([json(200, [])], { baseUrl });
      await client.listCategories();
      assert.equal(requests[0]?.url, `${BASE}/categories`);
    }
  });

  it('refuses addresses it cannot use', () => {
    assert.throws(() => normalizeBaseUrl('api.example.test'), TypeError);
    assert.throws(() => normalizeBaseUrl('ftp://api.example.test'), /http or https/);
    assert.throws(() => normalizeBaseUrl('https://api.example.test/v1?x=1'), /query or fragment/);
  });
});

describe('options', () => {
  it('refuses an empty key and bad retry settings', () => {
    const fetch = scriptedFetch([]).fetch;
    assert.throws(() => createClient({ baseUrl: BASE, apiKey: ' ', fetch }), /apiKey/);
    assert.throws(() => createClient({ baseUrl: BASE, apiKey: API_KEY, maxRetries: -1 }), RangeError);
    assert.throws(() => createClient({ baseUrl: BASE, apiKey: API_KEY, maxRetries: 1.5 }), RangeError);
    assert.throws(
      () => createClient({ baseUrl: BASE, apiKey: API_KEY, retry: { maxDelayMs: Number.NaN } }),
      /retry.maxDelayMs/,
    );
  });
});

describe('backoff', () => {
  it('doubles from baseDelayMs and stops at the cap (random = 1)', async () => {
    const unavailable = () => failure(503, 'service_unavailable');
    const { client, delays, requests } = setup(
      [unavailable(), unavailable(), unavailable(), unavailable(), unavailable(), json(200, [])],
      { maxRetries: 5, retry: { maxDelayMs: 3000 } },
    );
    assert.deepEqual(await client.listCategories(), []);
    assert.deepEqual(delays, [500, 1000, 2000, 3000, 3000]);
    assert.equal(requests.length, 6);
  });

  it('uses the default 500 ms base and honours a custom one', async () => {
    const first = setup([networkError(), networkError(), json(200, [])]);
    await first.client.listCategories();
    assert.deepEqual(first.delays, [500, 1000]);
    const second = setup([networkError(), networkError(), json(200, [])], { retry: { baseDelayMs: 100 } });
    await second.client.listCategories();
    assert.deepEqual(second.delays, [100, 200]);
  });

  it('jitters across the whole interval: random = 0 waits nothing', async () => {
    const { client, delays } = setup([networkError(), networkError(), json(200, [])], { random: () => 0 });
    await client.listCategories();
    assert.deepEqual(delays, [0, 0]);
  });

  it('stays below the ceiling when random is just under 1', async () => {
    const { client, delays } = setup([networkError(), networkError(), json(200, [])], {
      random: () => 0.999_999,
    });
    await client.listCategories();
    assert.equal(delays.length, 2);
    assert.ok(delays[0] !== undefined && delays[0] > 499 && delays[0] < 500, String(delays[0]));
    assert.ok(delays[1] !== undefined && delays[1] > 999 && delays[1] < 1000, String(delays[1]));
  });

  it('is always within [0, min(cap, base * 2^attempt))', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, baseDelayMs, maxDelayMs, draw) => {
          const delay = backoffDelay(attempt, { baseDelayMs, maxDelayMs }, () => draw);
          const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
          assert.ok(delay >= 0 && delay <= ceiling && (ceiling === 0 || delay < ceiling));
        },
      ),
    );
  });
});

describe('Retry-After', () => {
  const NOW = Date.parse('2026-10-21T07:28:00Z');

  it('parses delta-seconds and HTTP-dates relative to now, and ignores the rest', () => {
    const cases: [string | null, number | undefined][] = [
      [null, undefined],
      ['0', 0],
      ['2', 2000],
      [' 120 ', 120_000],
      ['Wed, 21 Oct 2026 07:28:03 GMT', 3000],
      ['Wednesday, 21-Oct-26 07:28:05 GMT', 5000],
      ['Wed Oct 21 07:28:07 2026', 7000],
      ['Wed, 21 Oct 2026 07:27:59 GMT', undefined],
      ['-1', undefined],
      ['1.5', undefined],
      ['', undefined],
      ['soon', undefined],
    ];
    for (const [header, expected] of cases)
      assert.equal(parseRetryAfter(header, NOW), expected, String(header));
  });

  it('waits the seconds a 429 asks for, then succeeds', async () => {
    const { client, delays, requests } = setup([
      failure(429, 'rate_limit_exceeded', { retryAfter: '2' }),
      json(200, [CATEGORY]),
    ]);
    assert.deepEqual(await client.listCategories(), [CATEGORY]);
    assert.deepEqual(delays, [2000]);
    assert.equal(requests.length, 2);
  });

  it('waits until an HTTP-date, measured by the injected clock', async () => {
    const { client, delays } = setup(
      [failure(429, 'rate_limit_exceeded', { retryAfter: 'Wed, 21 Oct 2026 07:28:03 GMT' }), json(200, [])],
      { now: () => NOW },
    );
    await client.listCategories();
    assert.deepEqual(delays, [3000]);
  });

  it('measures an HTTP-date against Date.now by default', async () => {
    const atMs = Math.ceil(Date.now() / 1000) * 1000 + 5000;
    const at = new Date(atMs).toUTCString();
    const { client, delays } = setup([
      failure(503, 'service_unavailable', { retryAfter: at }),
      json(200, []),
    ]);
    // The client reads Date.now somewhere between these two: bounds that hold however slow the machine.
    const before = Date.now();
    await client.listCategories();
    const after = Date.now();
    assert.equal(delays.length, 1);
    assert.ok(
      delays[0] !== undefined && delays[0] >= atMs - after && delays[0] <= atMs - before,
      `${delays[0]} ms, between ${atMs - after} and ${atMs - before}`,
    );
  });

  it('falls back to backoff when the header is invalid or in the past', async () => {
    const { client, delays } = setup(
      [
        failure(429, 'rate_limit_exceeded', { retryAfter: 'soon' }),
        failure(429, 'rate_limit_exceeded', { retryAfter: 'Wed, 21 Oct 2026 07:00:00 GMT' }),
        json(200, []),
      ],
      { now: () => NOW },
    );
    await client.listCategories();
    assert.deepEqual(delays, [500, 1000]);
  });

  it('allows a wait equal to the cap', async () => {
    const { client, delays } = setup([
      failure(429, 'rate_limit_exceeded', { retryAfter: '30' }),
      json(200, []),
    ]);
    await client.listCategories();
    assert.deepEqual(delays, [30_000]);
  });

  it('throws at once when the wait is above the cap, so the caller sees it', async () => {
    const { client, delays, requests } = setup([
      failure(429, 'rate_limit_exceeded', { retryAfter: '31', requestId: 'req-1' }),
    ]);
    const error = await client.listCategories().then(
      () => assert.fail('expected a RateLimitError'),
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof RateLimitError);
    assert.equal(error.retryAfterMs, 31_000);
    assert.equal(error.code, 'rate_limit_exceeded');
    assert.equal(error.requestId, 'req-1');
    assert.deepEqual(delays, []);
    assert.equal(requests.length, 1);
  });

  it('applies the cap to other retryable answers too', async () => {
    const { client, delays } = setup([failure(503, 'service_unavailable', { retryAfter: '10' })], {
      retry: { maxDelayMs: 5000 },
    });
    await assert.rejects(client.listCategories(), ServerError);
    assert.deepEqual(delays, []);
  });
});

describe('what is retried', () => {
  const final: [Response, new (...args: never[]) => PetstoreError][] = [
    [failure(400, 'validation_failed'), ValidationError],
    [failure(400, 'malformed_json'), ValidationError],
    [failure(401, 'invalid_api_key'), AuthenticationError],
    [failure(404, 'not_found'), NotFoundError],
    [failure(409, 'pet_not_available'), ConflictError],
    [failure(410, 'endpoint_sunset'), GoneError],
    [failure(413, 'payload_too_large'), PetstoreError],
    [failure(415, 'unsupported_media_type'), PetstoreError],
    [failure(422, 'idempotency_key_reused'), ConflictError],
    [failure(429, 'api_key_banned', { retryAfter: '1' }), RateLimitError],
  ];
  for (const [response, ErrorClass] of final) {
    it(`does not retry a ${response.status} answer (${ErrorClass.name})`, async () => {
      const { client, delays, requests } = setup([response, json(201, CATEGORY)]);
      await assert.rejects(client.createCategory({ name: 'Dog' }), ErrorClass);
      assert.equal(requests.length, 1);
      assert.deepEqual(delays, []);
    });
  }

  it('throws a banned key at once, even when its Retry-After is within the cap', async () => {
    const { client, requests } = setup(
      [failure(429, 'api_key_banned', { retryAfter: '900' }), json(200, [])],
      {
        retry: { maxDelayMs: 3_600_000 },
      },
    );
    await assert.rejects(client.listCategories(), { name: 'RateLimitError', code: 'api_key_banned' });
    assert.equal(requests.length, 1);
  });

  const transient: [string, () => Step][] = [
    ['429 rate_limit_exceeded', () => failure(429, 'rate_limit_exceeded')],
    ['409 idempotency_key_in_use', () => failure(409, 'idempotency_key_in_use', { retryAfter: '1' })],
    ['500', () => failure(500, 'internal_error')],
    ['502', () => new Response('<html>Bad Gateway</html>', { status: 502 })],
    ['503', () => failure(503, 'service_unavailable')],
    ['504', () => new Response('', { status: 504 })],
    ['a connection error', networkError],
  ];
  for (const [name, step] of transient) {
    it(`retries ${name}`, async () => {
      const { client, requests } = setup([step(), json(201, CATEGORY)]);
      assert.deepEqual(await client.createCategory({ name: 'Dog' }), CATEGORY);
      assert.equal(requests.length, 2);
    });
  }

  it('keeps the Idempotency-Key of a call across its retries', async () => {
    const { client, requests } = setup([
      networkError(),
      failure(409, 'idempotency_key_in_use', { retryAfter: '1' }),
      json(201, CATEGORY),
    ]);
    await client.createCategory({ name: 'Dog' });
    const keys = requests.map((request) => request.headers['idempotency-key']);
    assert.equal(keys.length, 3);
    assert.match(keys[0] ?? '', UUID);
    assert.deepEqual(new Set(keys).size, 1);
    assert.deepEqual(new Set(requests.map((request) => request.body)).size, 1);
  });

  it("uses the caller's Idempotency-Key on every attempt", async () => {
    const { client, requests } = setup([failure(503, 'service_unavailable'), json(201, CATEGORY)]);
    await client.createCategory({ name: 'Dog' }, { idempotencyKey: 'order-2026-0001' });
    assert.deepEqual(
      requests.map((request) => request.headers['idempotency-key']),
      ['order-2026-0001', 'order-2026-0001'],
    );
  });

  it('throws an Idempotency-Key that cannot be a header value at once, sending nothing', async () => {
    for (const idempotencyKey of ['line\nbreak', '\u2603']) {
      const { client, requests, delays } = setup([json(201, CATEGORY)]);
      await assert.rejects(client.createCategory({ name: 'Dog' }, { idempotencyKey }), TypeError);
      assert.equal(requests.length, 0);
      assert.deepEqual(delays, []);
    }
  });

  it('makes exactly 1 + maxRetries attempts and throws the last error', async () => {
    for (const maxRetries of [0, 1, 2, 4]) {
      const steps = Array.from({ length: maxRetries + 2 }, (_, index) =>
        failure(503, 'service_unavailable', { requestId: `req-${index}` }),
      );
      const { client, requests, delays } = setup(steps, { maxRetries });
      await assert.rejects(client.listCategories(), { name: 'ServerError', requestId: `req-${maxRetries}` });
      assert.equal(requests.length, 1 + maxRetries, `maxRetries ${maxRetries}`);
      assert.equal(delays.length, maxRetries);
    }
  });

  it('defaults to 2 retries', async () => {
    const { client, requests } = setup([networkError(), networkError(), networkError(), json(200, [])]);
    await assert.rejects(client.listCategories(), ConnectionError);
    assert.equal(requests.length, 3);
  });

  it('does not retry a rejection of fetch that is not a network error', async () => {
    const bug = new RangeError('bug in a custom fetch');
    const { client, requests } = setup([bug, json(200, [])]);
    await assert.rejects(client.listCategories(), (error) => error === bug);
    assert.equal(requests.length, 1);
  });
});

describe('errors', () => {
  const cases: [Response, new (...args: never[]) => PetstoreError, string, number, ErrorCode][] = [
    [
      failure(400, 'validation_failed', { requestId: 'r400' }),
      ValidationError,
      'ValidationError',
      400,
      'validation_failed',
    ],
    [
      failure(401, 'missing_api_key', { requestId: 'r401' }),
      AuthenticationError,
      'AuthenticationError',
      401,
      'missing_api_key',
    ],
    [failure(404, 'not_found', { requestId: 'r404' }), NotFoundError, 'NotFoundError', 404, 'not_found'],
    [
      failure(409, 'pet_not_available', { requestId: 'r409' }),
      ConflictError,
      'ConflictError',
      409,
      'pet_not_available',
    ],
    [failure(410, 'endpoint_sunset', { requestId: 'r410' }), GoneError, 'GoneError', 410, 'endpoint_sunset'],
    [
      failure(415, 'unsupported_media_type', { requestId: 'r415' }),
      PetstoreError,
      'PetstoreError',
      415,
      'unsupported_media_type',
    ],
    [
      failure(422, 'idempotency_key_reused', { requestId: 'r422' }),
      ConflictError,
      'ConflictError',
      422,
      'idempotency_key_reused',
    ],
    [
      failure(429, 'api_key_banned', { requestId: 'r429' }),
      RateLimitError,
      'RateLimitError',
      429,
      'api_key_banned',
    ],
    [
      failure(500, 'internal_error', { requestId: 'r500' }),
      ServerError,
      'ServerError',
      500,
      'internal_error',
    ],
  ];
  for (const [response, ErrorClass, name, status, code] of cases) {
    it(`a ${status} is a ${name} with status, code, message and requestId`, async () => {
      const { client } = setup([response], { maxRetries: 0 });
      const error = await client.getPetById(1).then(
        () => assert.fail('expected an error'),
        (thrown: unknown) => thrown,
      );
      assert.ok(error instanceof ErrorClass);
      assert.ok(error instanceof PetstoreError && error instanceof Error);
      assert.ok(isPetstoreError(error));
      assert.equal(error.name, name);
      assert.equal(error.status, status);
      assert.equal(error.code, code);
      assert.equal(error.message, `failed: ${code}`);
      assert.equal(error.requestId, `r${status}`);
    });
  }

  it('takes the request id from X-Request-Id when the body has none', async () => {
    const { client } = setup([failure(404, 'not_found', { headerRequestId: 'from-header' })]);
    await assert.rejects(client.getPetById(1), { requestId: 'from-header' });
  });

  it('prefers the body request id, and leaves it undefined when neither is sent', async () => {
    const { client } = setup([
      failure(404, 'not_found', { requestId: 'from-body', headerRequestId: 'from-header' }),
      failure(404, 'not_found'),
    ]);
    await assert.rejects(client.getPetById(1), { requestId: 'from-body' });
    await assert.rejects(
      client.getPetById(1),
      (error) => error instanceof NotFoundError && error.requestId === undefined,
    );
  });

  it('gives RateLimitError the Retry-After wait, or undefined without one', async () => {
    const { client } = setup([
      failure(429, 'api_key_banned', { retryAfter: '600' }),
      failure(429, 'api_key_banned'),
    ]);
    await assert.rejects(client.listCategories(), { retryAfterMs: 600_000 });
    await assert.rejects(
      client.listCategories(),
      (error) => error instanceof RateLimitError && error.retryAfterMs === undefined,
    );
  });

  it('types an answer that is not the Error shape as unexpected_response', async () => {
    const { client } = setup(
      [
        new Response('<html>Bad Gateway</html>', { status: 502, headers: { 'x-request-id': 'edge-1' } }),
        json(400, { error: 'nope' }),
        json(401, null),
      ],
      { maxRetries: 0 },
    );
    await assert.rejects(client.listCategories(), {
      name: 'ServerError',
      status: 502,
      code: 'unexpected_response',
      requestId: 'edge-1',
    });
    await assert.rejects(client.listCategories(), { name: 'ValidationError', code: 'unexpected_response' });
    await assert.rejects(client.listCategories(), {
      name: 'AuthenticationError',
      code: 'unexpected_response',
    });
  });

  it('does not retry a success whose body is not JSON', async () => {
    const { client, requests } = setup([
      new Response('OK', { status: 200, headers: { 'x-request-id': 'r1' } }),
      json(200, []),
    ]);
    await assert.rejects(client.listCategories(), {
      name: 'PetstoreError',
      status: 200,
      code: 'unexpected_response',
      requestId: 'r1',
    });
    assert.equal(requests.length, 1);
  });

  it('reports a connection failure with status 0 and its cause', async () => {
    const cause = networkError();
    const { client } = setup([cause], { maxRetries: 0 });
    const error = await client.listCategories().then(
      () => assert.fail('expected a ConnectionError'),
      (thrown: unknown) => thrown,
    );
    assert.ok(error instanceof ConnectionError);
    assert.equal(error.name, 'ConnectionError');
    assert.equal(error.status, 0);
    assert.equal(error.code, 'connection_error');
    assert.equal(error.requestId, undefined);
    assert.equal(error.cause, cause);
    assert.match(error.message, /fetch failed/);
  });

  it('isPetstoreError is false for other values', () => {
    assert.equal(isPetstoreError(new Error('x')), false);
    assert.equal(isPetstoreError({ status: 400, code: 'validation_failed' }), false);
  });
});

describe('abort', () => {
  it('stops a pending wait between retries and sends nothing more', async () => {
    const controller = new AbortController();
    const { fetch, requests } = scriptedFetch([failure(503, 'service_unavailable'), json(200, [])]);
    const sleeps: number[] = [];
    const sleep: Sleep = async (ms, signal) => {
      sleeps.push(ms);
      controller.abort();
      signal?.throwIfAborted();
    };
    const client = createClient({ baseUrl: BASE, apiKey: API_KEY, fetch, sleep });
    await assert.rejects(client.listCategories({ signal: controller.signal }), { name: 'AbortError' });
    assert.equal(sleeps.length, 1);
    assert.equal(requests.length, 1);
  });

  it('cancels the default timer, rejecting with the reason long before the wait ends', async () => {
    const controller = new AbortController();
    const { fetch, requests } = scriptedFetch([
      failure(429, 'rate_limit_exceeded', { retryAfter: '20' }),
      json(200, []),
    ]);
    const client = createClient({ baseUrl: BASE, apiKey: API_KEY, fetch });
    const started = performance.now();
    const pending = client.listCategories({ signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user gave up')), 20);
    await assert.rejects(pending, /user gave up/);
    assert.ok(performance.now() - started < 5000);
    assert.equal(requests.length, 1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const { client, requests } = setup([json(200, [])]);
    await assert.rejects(client.listCategories({ signal: AbortSignal.abort() }), { name: 'AbortError' });
    assert.equal(requests.length, 0);
  });

  it('passes the signal to fetch and rethrows its abort without retrying', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const fetch: FetchLike = async (_url, init) => {
      seen = init.signal ?? undefined;
      controller.abort();
      throw new DOMException('This operation was aborted', 'AbortError');
    };
    const client = createClient({ baseUrl: BASE, apiKey: API_KEY, fetch, sleep: async () => {} });
    await assert.rejects(client.listCategories({ signal: controller.signal }), { name: 'AbortError' });
    assert.equal(seen, controller.signal);
  });

  it('the default sleep waits, and rejects at once on an aborted signal', async () => {
    await timerSleep(1);
    await assert.rejects(timerSleep(60_000, AbortSignal.abort()), { name: 'AbortError' });
  });
});

describe('packaging', () => {
  it('its build loads nothing at run time from outside its folder but the Standard Webhooks library, for verifyWebhook', async () => {
    // The package's own build (packages/client/dist), which is what its tarball holds.
    const folder = new URL('../../../packages/client/dist/', import.meta.url);
    const files = (await readdir(folder)).filter((name) => name.endsWith('.js'));
    assert.ok(files.includes('index.js'));
    for (const file of files) {
      const source = await readFile(new URL(file, folder), 'utf8');
      const specifiers = [...source.matchAll(/\bfrom\s+'([^']+)'|\bimport\s*\(\s*'([^']+)'/g)].map(
        (match) => match[1] ?? match[2],
      );
      for (const specifier of specifiers) {
        if (file === 'webhooks.js' && specifier === 'standardwebhooks') continue;
        assert.match(specifier ?? '', /^\.\/[\w-]+\.js$/, `${file} imports ${specifier}`);
      }
    }
  });
});
