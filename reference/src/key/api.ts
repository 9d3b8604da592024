import type { UsageBucket } from '../../../console/src/types.js';

/** A rate-limit window of the calling key. */
export interface KeyWindow {
  limit: number;
  remaining: number;
  /** Unix seconds. */
  reset: number;
}

/** `GET /v1/key`, the fields this page shows. */
export interface KeyInfo {
  id: string;
  name: string;
  plan: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
  limits: { minute: KeyWindow; day: KeyWindow };
  ban: { banned: boolean; until: string | null };
  lastUsedAt: string | null;
}

/** `GET /v1/key/usage`. */
export interface KeyUsageHistory {
  hours: UsageBucket[];
  days: UsageBucket[];
}

/** `POST /v1/key/rotate`: the successor, with the key itself. */
export interface RotatedKey {
  id: string;
  key: string;
  expiresAt: string | null;
  replacedKeyExpiresAt: string;
}

/** An answer of 400 and above, with the API's Error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * One `/v1` request with the key in `Authorization`, to this origin, without cookies: the key routes take the
 * key only from the header, so no other page can drive them.
 */
export async function callWithKey<T>(key: string, path: string, method = 'GET', body?: unknown): Promise<T> {
  const response = await fetch(`/v1${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    cache: 'no-store',
    credentials: 'omit',
  });
  const answer = (await response.json()) as T & { code?: string; message?: string };
  if (!response.ok)
    throw new ApiError(response.status, answer.code ?? 'unknown', answer.message ?? response.statusText);
  return answer;
}
