// The answers' types come from the contract, as the console's do: the page cannot drift from the API.
import type { Static } from '@sinclair/typebox';
import { fetchJson } from '../../../kit/fetch-json.js';
import { nextCursor } from '../../../kit/paging.js';
import type {
  KeyInfo as KeyInfoSchema,
  KeyUsageHistory as KeyUsageHistorySchema,
  RevokedKey as RevokedKeySchema,
  RotatedKey as RotatedKeySchema,
} from '../../../src/contract/keys.js';
import type { LoggedRequest, OwnRequestQuery } from '../../../src/contract/requests.js';

/** `GET /v1/key`. */
export type KeyInfo = Static<typeof KeyInfoSchema>;
/** A rate-limit window of the calling key; `reset` in Unix seconds. */
export type KeyWindow = KeyInfo['limits']['minute'];
/** `GET /v1/key/usage`. */
export type KeyUsageHistory = Static<typeof KeyUsageHistorySchema>;
/** `POST /v1/key/rotate`: the successor, with the key itself. */
export type RotatedKey = Static<typeof RotatedKeySchema>;
/** `POST /v1/key/revoke`. */
export type RevokedKey = Static<typeof RevokedKeySchema>;

export type { LoggedRequest };
/** The filters of `GET /v1/key/requests` that the page's form sets (the API checks them). */
export type RequestFilter = Partial<
  Record<keyof Pick<OwnRequestQuery, 'status' | 'code' | 'method'>, string>
>;

/**
 * One `/v1` request with the key in `Authorization`, to this origin, without cookies: the key routes take the
 * key only from the header, so no other page can drive them.
 */
async function exchangeWithKey<T>(
  key: string,
  path: string,
  method = 'GET',
  body?: unknown,
): Promise<{ body: T; headers: Headers }> {
  return fetchJson<T>(`/v1${path}`, {
    method,
    body,
    headers: { authorization: `Bearer ${key}` },
    cache: 'no-store',
    credentials: 'omit',
  });
}

/** {@link exchangeWithKey}'s body alone. */
export async function callWithKey<T>(key: string, path: string, method = 'GET', body?: unknown): Promise<T> {
  return (await exchangeWithKey<T>(key, path, method, body)).body;
}

/**
 * The key's own request of an id (the newest, should a client have sent the same id twice), or undefined
 * when none of the key's requests in the log has it.
 */
export async function findOwnRequest(key: string, requestId: string): Promise<LoggedRequest | undefined> {
  const query = new URLSearchParams({ requestId, limit: '1' });
  return (await callWithKey<LoggedRequest[]>(key, `/key/requests?${query}`))[0];
}

/** A page of the key's own logged requests, newest first, and where the next (older) one begins. */
export async function listOwnRequests(
  key: string,
  filter: RequestFilter,
  cursor: string | undefined,
): Promise<{ rows: LoggedRequest[]; cursor: string | undefined }> {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...filter, cursor, limit: '20' }))
    if (value !== undefined && value !== '') query.set(name, value);
  const answer = await exchangeWithKey<LoggedRequest[]>(key, `/key/requests?${query}`);
  return { rows: answer.body, cursor: nextCursor(answer.headers.get('link')) };
}
