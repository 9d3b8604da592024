import { sessionEnded } from './session.js';
import type {
  ApiKey,
  ApiKeyChange,
  ApiKeyCreated,
  AuditEvent,
  Domain,
  DomainRemoval,
  DomainSettings,
  Granularity,
  KeyUsage,
  NewApiKey,
  NewDomain,
  Session,
  SessionStarted,
  UsageSeries,
} from './types.js';

const ADMIN = '/admin/v1';

/** An answer of 400 and above, with the admin API's error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface Call {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * Where the session's second secret is kept: this tab's storage, which only pages of this origin (port
 * included) can read, unlike the cookie, which any server on this host receives. A new tab signs in anew.
 */
const SECRET_ITEM = 'petstore.session';

/** Calls started while this is above zero are a page refreshing itself, not the person at work. */
let background = 0;

/**
 * Runs `load` as a background refresh: the calls it starts at once (before its first await) are marked, and
 * the server does not count them as activity, so an unattended screen still ends its session when idle.
 */
export function inBackground<T>(load: () => Promise<T>): Promise<T> {
  background += 1;
  try {
    return load();
  } finally {
    background -= 1;
  }
}

/**
 * One admin API request with the session: its cookie, and its second secret in `X-Petstore-Session`. A 401
 * means the session is gone (expired, revoked, signed out in another tab): the console goes back to its
 * sign-in page.
 */
async function call<T>(path: string, { method = 'GET', body, headers = {} }: Call = {}): Promise<T> {
  const secret = sessionStorage.getItem(SECRET_ITEM);
  const sent: Record<string, string> = { ...headers };
  if (secret !== null && sent.authorization === undefined) sent['x-petstore-session'] = secret;
  if (background > 0) sent['x-petstore-background'] = 'true';
  if (body !== undefined) sent['content-type'] = 'application/json';
  const response = await fetch(`${ADMIN}${path}`, {
    method,
    // The cookie is HttpOnly and SameSite=Strict: the browser sends it, the console never sees it.
    credentials: 'same-origin',
    headers: sent,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status === 204) return undefined as T;
  const answer = (await response.json().catch(() => null)) as unknown;
  if (response.ok) return answer as T;
  const error = answer as { code?: string; message?: string } | null;
  if (response.status === 401 && !path.startsWith('/sessions')) sessionEnded();
  throw new ApiError(response.status, error?.code ?? 'unknown', error?.message ?? response.statusText);
}

/** A query string of the values that are set, or nothing. */
function query(values: Record<string, string | number | undefined>): string {
  const set = Object.entries(values).filter(
    (entry): entry is [string, string | number] => entry[1] !== undefined,
  );
  return set.length === 0 ? '' : `?${new URLSearchParams(set.map(([name, value]) => [name, String(value)]))}`;
}

const id = (value: string) => encodeURIComponent(value);

export interface AuditFilter {
  target?: string;
  actor?: string;
  from?: string;
  to?: string;
  before?: number;
  limit?: number;
}

/** The admin API, as the console uses it. */
export const api = {
  /**
   * Trades an admin token for a session: its cookie, and its second secret, kept in this tab's storage. The
   * token is sent once and kept nowhere.
   */
  signIn: async (token: string) => {
    const started = await call<SessionStarted>('/sessions', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    const { secret, ...session } = started;
    sessionStorage.setItem(SECRET_ITEM, secret);
    return session;
  },
  currentSession: () => call<Session>('/sessions/current'),
  signOut: async () => {
    try {
      await call<void>('/sessions/current', { method: 'DELETE' });
    } finally {
      sessionStorage.removeItem(SECRET_ITEM);
    }
  },

  /** The DNS target domains point at (null: `DOMAINS_TARGET` is not set) and whether TXT is required. */
  domainSettings: () => call<DomainSettings>('/domain-settings'),
  listDomains: () => call<Domain[]>('/domains'),
  getDomain: (name: string) => call<Domain>(`/domains/${id(name)}`),
  addDomain: (domain: NewDomain) => call<Domain>('/domains', { method: 'POST', body: domain }),
  verifyDomain: (name: string) => call<Domain>(`/domains/${id(name)}/verify`, { method: 'POST' }),
  removeDomain: (name: string) => call<DomainRemoval>(`/domains/${id(name)}`, { method: 'DELETE' }),

  listKeys: () => call<ApiKey[]>('/keys'),
  getKey: (keyId: string) => call<ApiKey>(`/keys/${id(keyId)}`),
  createKey: (key: NewApiKey) => call<ApiKeyCreated>('/keys', { method: 'POST', body: key }),
  updateKey: (keyId: string, change: ApiKeyChange) =>
    call<ApiKey>(`/keys/${id(keyId)}`, { method: 'PATCH', body: change }),
  rotateKey: (keyId: string, gracePeriodSeconds: number) =>
    call<ApiKeyCreated>(`/keys/${id(keyId)}/rotate`, { method: 'POST', body: { gracePeriodSeconds } }),
  revokeKey: (keyId: string) => call<ApiKey>(`/keys/${id(keyId)}/revoke`, { method: 'POST' }),
  unbanKey: (keyId: string) => call<ApiKey>(`/keys/${id(keyId)}/unban`, { method: 'POST' }),

  usage: (granularity: Granularity, key?: string) =>
    call<UsageSeries>(`/usage${query({ key, granularity })}`),
  /** The most used keys of today (UTC), at most `limit`. */
  usageByKey: (limit: number) => call<KeyUsage[]>(`/usage/keys${query({ limit })}`),

  /** Audit events, newest first; `before` pages to older ones. */
  audit: (filter: AuditFilter) => call<AuditEvent[]>(`/audit${query({ ...filter, order: 'desc' })}`),
};
