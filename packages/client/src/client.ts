import type {
  Category,
  KeyInfo,
  KeyRotation,
  KeyUsageHistory,
  LoggedRequest,
  NewCategory,
  NewOrder,
  NewPet,
  OperationId,
  OperationRoutes,
  Order,
  OrderQuery,
  OwnRequestQuery,
  Pet,
  PetQuery,
  RevokedKey,
  RotatedKey,
} from './contract.js';
import { DEFAULT_MAX_RETRIES, DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
import {
  type FetchLike,
  type PostOptions,
  type RequestOptions,
  type Sleep,
  send,
  sendPage,
  type TransportSettings,
  sleep as timerSleep,
} from './transport.js';

export interface ClientOptions {
  /**
   * The server's origin (`https://api.example.com`) or its versioned base address as listed in the OpenAPI
   * `servers` (`https://api.example.com/v1`); a trailing slash is ignored. `/v1` is appended when the
   * path does not already end in it, so a path prefix in front of the API (`https://host/petstore`) works.
   */
  baseUrl: string | URL;
  /** The API key, sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /** The `fetch` to use; default `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Retries after the first attempt; default 2, so at most 3 requests per call. 0 disables retries. */
  maxRetries?: number;
  /** Backoff: `baseDelayMs` (default 500) doubles per retry, `maxDelayMs` (default 30000) caps every wait. */
  retry?: Partial<RetryPolicy>;
  /** Source of jitter in `[0, 1)`; default `Math.random`. */
  random?: () => number;
  /** How the client waits between retries; default a timer that the call's `signal` cancels. */
  sleep?: Sleep;
  /** The clock, in epoch milliseconds, that HTTP-date `Retry-After` values are measured against. */
  now?: () => number;
  /** `User-Agent` header; default `petstore-client`. */
  userAgent?: string;
}

/** The lists that page, with the filters each takes (`limit` sets the page size; `after` is the client's). */
export interface PagedLists {
  listCategories: { query: { limit?: number }; item: Category };
  listPets: { query: Omit<PetQuery, 'after'>; item: Pet };
  listOrders: { query: Omit<OrderQuery, 'after'>; item: Order };
}

/** The typed Pet Store client: one method per operation of the contract, and `paginate` over the lists. */
export interface PetstoreClient extends Operations {
  /**
   * Every item of a list, page after page (`limit` per request, default 100), following each answer's
   * `Link: <…>; rel="next"`. Pages are asked for as the loop goes; an item added meanwhile comes once at
   * most, and none that existed when it began is skipped or repeated.
   * @example for await (const pet of client.paginate('listPets', { status: 'available', limit: 500 })) console.log(pet.name);
   */
  paginate<Id extends keyof PagedLists>(
    operation: Id,
    query?: PagedLists[Id]['query'],
    options?: RequestOptions,
  ): AsyncIterableIterator<PagedLists[Id]['item']>;
}

/** One method per operation of the contract. */
export interface Operations {
  /**
   * Lists every category, ascending by id.
   * @example const categories = await client.listCategories();
   */
  listCategories(options?: RequestOptions): Promise<Category[]>;
  /**
   * Creates a category and returns it with its assigned id.
   * @example const dog = await client.createCategory({ name: 'Dog', description: 'Domestic dogs' });
   */
  createCategory(category: NewCategory, options?: PostOptions): Promise<Category>;
  /**
   * Lists pets, ascending by id, optionally of one category or in one status (beta).
   * @example const available = await client.listPets({ categoryId: 1, status: 'available' });
   */
  listPets(query?: PetQuery, options?: RequestOptions): Promise<Pet[]>;
  /**
   * Adds a pet to an existing category; `status` defaults to `available` (beta).
   * @example const rex = await client.createPet({ name: 'Rex', categoryId: 1 });
   */
  createPet(pet: NewPet, options?: PostOptions): Promise<Pet>;
  /**
   * Finds one pet by id.
   * @deprecated `GET /pets/{petId}` is deprecated and has a sunset date (by default deprecated on
   * 2026-11-01, sunset on 2027-06-30; the server's `Sunset` header gives the actual date). From the sunset
   * on it fails with a `GoneError` (`endpoint_sunset`). Use `listPets` with filters instead.
   * @example const pet = await client.getPetById(42);
   */
  getPetById(petId: Pet['id'], options?: RequestOptions): Promise<Pet>;
  /**
   * Lists orders, newest first, optionally in one status (beta).
   * @example const placed = await client.listOrders({ status: 'placed' });
   */
  listOrders(query?: OrderQuery, options?: RequestOptions): Promise<Order[]>;
  /**
   * Orders an available pet, which becomes `pending` (experimental).
   * @example const order = await client.placeOrder({ petId: 42, quantity: 1 });
   */
  placeOrder(order: NewOrder, options?: PostOptions): Promise<Order>;
  /**
   * Shows the calling API key: plan, scopes, expiry, both rate-limit windows, ban, the last 7 days of use
   * and the deprecated operations it calls (beta). It spends no quota.
   * @example const { limits } = await client.getKey(); console.log(limits.day.remaining);
   */
  getKey(options?: RequestOptions): Promise<KeyInfo>;
  /**
   * The calling key's answers by outcome for each of the last 48 hours and 30 days (beta). It spends no quota.
   * @example const { days } = await client.getKeyUsage(); console.log(days.at(-1)?.success);
   */
  getKeyUsage(options?: RequestOptions): Promise<KeyUsageHistory>;
  /**
   * The calling key's own requests from the request log, newest first, one page (beta): filter by status
   * (`404` or `4xx`), error code, route, method, time or request id. It spends no quota.
   * @example const failed = await client.listKeyRequests({ status: '5xx' }); console.log(failed[0]?.requestId);
   */
  listKeyRequests(query?: OwnRequestQuery, options?: RequestOptions): Promise<LoggedRequest[]>;
  /**
   * Rotates the calling key (beta): answers its successor with the new key, shown once. The client's key
   * works for the grace period; make a new client with the successor's key. A retry whose first attempt
   * went through is 409 `key_rotated` naming the successor.
   * @example const next = await client.rotateKey({ gracePeriodSeconds: 3600 }); save(next.key);
   */
  rotateKey(rotation?: KeyRotation, options?: PostOptions): Promise<RotatedKey>;
  /**
   * Revokes the calling key, for a key that leaked (beta): every instance refuses it within 5 seconds.
   * @example await client.revokeKey();
   */
  revokeKey(options?: PostOptions): Promise<RevokedKey>;
}

/**
 * Method and path of each operation. The `satisfies` makes the compiler check every entry against the
 * contract, and demand an entry for every operation the contract gains.
 */
const ROUTES = {
  listCategories: { method: 'GET', path: '/categories' },
  createCategory: { method: 'POST', path: '/categories' },
  listPets: { method: 'GET', path: '/pets' },
  createPet: { method: 'POST', path: '/pets' },
  getPetById: { method: 'GET', path: '/pets/{petId}' },
  listOrders: { method: 'GET', path: '/store/orders' },
  placeOrder: { method: 'POST', path: '/store/orders' },
  getKey: { method: 'GET', path: '/key' },
  getKeyUsage: { method: 'GET', path: '/key/usage' },
  listKeyRequests: { method: 'GET', path: '/key/requests' },
  rotateKey: { method: 'POST', path: '/key/rotate' },
  revokeKey: { method: 'POST', path: '/key/revoke' },
} as const satisfies OperationRoutes;

/** The major version segment every operation lives under (spec section 9). */
const VERSION_SEGMENT = '/v1';

/** The versioned base address, without a trailing slash: see {@link ClientOptions.baseUrl}. */
export function normalizeBaseUrl(baseUrl: string | URL): string {
  const url = new URL(baseUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`baseUrl must be an http or https URL, got ${url.protocol}`);
  if (url.search !== '' || url.hash !== '') throw new TypeError('baseUrl must not have a query or fragment');
  const path = url.pathname.replace(/\/+$/, '');
  const versioned = path.endsWith(VERSION_SEGMENT) ? path : `${path}${VERSION_SEGMENT}`;
  return `${url.origin}${versioned}`;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a non-negative number`);
  return value;
}

function settingsFrom(options: ClientOptions): TransportSettings {
  if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '')
    throw new TypeError('apiKey must be a non-empty string');
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (!Number.isSafeInteger(maxRetries) || maxRetries < 0)
    throw new RangeError('maxRetries must be a non-negative integer');
  return {
    baseUrl: normalizeBaseUrl(options.baseUrl),
    apiKey: options.apiKey,
    userAgent: options.userAgent ?? 'petstore-client',
    // Looked up per call (not captured here) so a fetch patched after construction is honoured.
    fetch: options.fetch ?? ((url, init) => globalThis.fetch(url, init)),
    maxRetries,
    retry: {
      baseDelayMs: nonNegative(
        'retry.baseDelayMs',
        options.retry?.baseDelayMs ?? DEFAULT_RETRY_POLICY.baseDelayMs,
      ),
      maxDelayMs: nonNegative(
        'retry.maxDelayMs',
        options.retry?.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs,
      ),
    },
    random: options.random ?? Math.random,
    sleep: options.sleep ?? timerSleep,
    now: options.now ?? Date.now,
  };
}

/**
 * Creates a client for the Pet Store API. It holds no connection of its own: every call is one `fetch`,
 * plus retries.
 * @example
 * const client = createClient({ baseUrl: 'https://api.example.com/v1', apiKey: 'ps_live_...' });
 */
export function createClient(options: ClientOptions): PetstoreClient {
  const settings = settingsFrom(options);
  const {
    listCategories,
    createCategory,
    listPets,
    createPet,
    getPetById,
    listOrders,
    placeOrder,
    getKey,
    getKeyUsage,
    listKeyRequests,
    rotateKey,
    revokeKey,
  } = ROUTES;
  // The `satisfies` checks both ways: every operation of the contract has a declared method and an
  // implementation, and nothing else is added.
  const client = {
    listCategories: (requestOptions) => send(settings, { ...listCategories, options: requestOptions }),
    createCategory: (category, postOptions) =>
      send(settings, { ...createCategory, body: category, options: postOptions }),
    listPets: (query, requestOptions) =>
      send(settings, { ...listPets, query: query ?? {}, options: requestOptions }),
    createPet: (pet, postOptions) => send(settings, { ...createPet, body: pet, options: postOptions }),
    getPetById: (petId, requestOptions) =>
      send(settings, {
        method: getPetById.method,
        path: getPetById.path.replace('{petId}', encodeURIComponent(String(petId))),
        options: requestOptions,
      }),
    listOrders: (query, requestOptions) =>
      send(settings, { ...listOrders, query: query ?? {}, options: requestOptions }),
    placeOrder: (order, postOptions) => send(settings, { ...placeOrder, body: order, options: postOptions }),
    getKey: (requestOptions) => send(settings, { ...getKey, options: requestOptions }),
    getKeyUsage: (requestOptions) => send(settings, { ...getKeyUsage, options: requestOptions }),
    listKeyRequests: (query, requestOptions) =>
      send(settings, { ...listKeyRequests, query: query ?? {}, options: requestOptions }),
    rotateKey: (rotation, postOptions) =>
      send(settings, { ...rotateKey, body: rotation ?? {}, options: postOptions }),
    revokeKey: (postOptions) => send(settings, { ...revokeKey, options: postOptions }),
  } satisfies { [Id in OperationId]: Operations[Id] };
  async function* paginate<Id extends keyof PagedLists>(
    operation: Id,
    query: PagedLists[Id]['query'] = {},
    requestOptions?: RequestOptions,
  ): AsyncIterableIterator<PagedLists[Id]['item']> {
    const route = ROUTES[operation];
    const limit = query.limit ?? 100;
    let after: string | undefined;
    do {
      const page = await sendPage<PagedLists[Id]['item']>(settings, {
        ...route,
        query: { ...query, limit, ...(after === undefined ? {} : { after }) },
        options: requestOptions,
      });
      yield* page.items;
      after = page.nextAfter;
    } while (after !== undefined);
  }
  return { ...client, paginate };
}
