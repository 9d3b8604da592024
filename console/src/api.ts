import { isBackground } from '../../kit/background.js';
import { ApiError, errorOf, fetchJson } from '../../kit/fetch-json.js';
import { nextCursor } from '../../kit/paging.js';
import { sessionEnded } from './session.js';
import type {
  AdminLoggedRequest,
  AdminToken,
  AdminTokenCreated,
  ApiKey,
  ApiKeyChange,
  ApiKeyCreated,
  AuditEvent,
  DeliveryState,
  Domain,
  DomainRemoval,
  DomainSettings,
  EventType,
  Granularity,
  KeyUsage,
  NewAdminToken,
  NewApiKey,
  NewDomain,
  NewWebhook,
  Person,
  PersonSessionsEnd,
  PersonSessionsEnded,
  RequestQuery,
  Session,
  SessionStarted,
  UsageSeries,
  Webhook,
  WebhookChange,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookTestSent,
  WebhookWithSecret,
} from './types.js';

const ADMIN = '/admin/v1';

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

/** The session's headers for a call: its second secret, and the background mark while `inBackground` runs. */
function sessionHeaders(headers: Record<string, string> = {}): Record<string, string> {
  const secret = sessionStorage.getItem(SECRET_ITEM);
  const sent: Record<string, string> = { ...headers };
  if (secret !== null && sent.authorization === undefined) sent['x-petstore-session'] = secret;
  if (isBackground()) sent['x-petstore-background'] = 'true';
  return sent;
}

/** A 401 means the session is gone (expired, revoked, signed out in another tab), but not a sign-in's own. */
function endSessionOn(path: string, error: unknown): void {
  if (error instanceof ApiError && error.status === 401 && !path.startsWith('/sessions')) sessionEnded();
}

/**
 * One admin API request with the session, answered with its headers: its cookie, and its second secret in
 * `X-Petstore-Session`. A 401 means the session is gone (expired, revoked, signed out in another tab): the
 * console goes back to its sign-in page.
 */
async function exchange<T>(
  path: string,
  { method = 'GET', body, headers = {} }: Call = {},
): Promise<{ body: T; headers: Headers }> {
  try {
    // The cookie is HttpOnly and SameSite=Strict: the browser sends it, the console never sees it.
    return await fetchJson<T>(`${ADMIN}${path}`, {
      method,
      body,
      headers: sessionHeaders(headers),
      credentials: 'same-origin',
    });
  } catch (error) {
    endSessionOn(path, error);
    throw error;
  }
}

/** A whole list exported (`format=`), as a file to save, fetched with the session. */
async function download(path: string): Promise<Blob> {
  const response = await fetch(`${ADMIN}${path}`, { credentials: 'same-origin', headers: sessionHeaders() });
  if (!response.ok) {
    const error = await errorOf(response);
    endSessionOn(path, error);
    throw error;
  }
  return response.blob();
}

/** One admin API request with the session (see `exchange`), answered with its body. */
async function call<T>(path: string, init: Call = {}): Promise<T> {
  return (await exchange<T>(path, init)).body;
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
  actorKind?: string;
  from?: string;
  to?: string;
  before?: number;
  limit?: number;
}

/** The request log's filters, as `GET /admin/v1/requests` takes them. */
export interface RequestFilter {
  key?: string;
  status?: string;
  code?: string;
  route?: string;
  method?: string;
  from?: string;
  to?: string;
  requestId?: string;
  client?: string;
  /** One API's requests: `v1` the API's, `admin` the admin API's; both when unset. */
  api?: RequestQuery['api'];
}

/** A page of the request log: its rows, where the next begins (none: this is the last), and its own id. */
export interface RequestPage {
  rows: AdminLoggedRequest[];
  cursor: string | undefined;
  /** The `X-Request-Id` of the call that read this page, which the log itself keeps as a row. */
  requestId: string | null;
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
  /**
   * Keeps the second secret of a session begun with the identity provider: the server puts it in the URL's
   * fragment, which no browser sends to a server; it is taken out of the address bar and the history at once.
   */
  adoptSignIn: () => {
    const found = /^#session=(pssh_[A-Za-z0-9_-]{43})$/.exec(window.location.hash);
    if (found === null) return;
    sessionStorage.setItem(SECRET_ITEM, found[1] as string);
    window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  },
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

  listAdminTokens: () => call<AdminToken[]>('/admin-tokens'),
  listPeople: () => call<Person[]>('/people'),
  endPersonSessions: (personId: string, body: PersonSessionsEnd) =>
    call<PersonSessionsEnded>(`/people/${id(personId)}/end-sessions`, { method: 'POST', body }),
  createAdminToken: (token: NewAdminToken) =>
    call<AdminTokenCreated>('/admin-tokens', { method: 'POST', body: token }),
  revokeAdminToken: (tokenId: string) =>
    call<AdminToken>(`/admin-tokens/${id(tokenId)}/revoke`, { method: 'POST' }),

  listWebhooks: () => call<Webhook[]>('/webhooks'),
  getWebhook: (webhookId: string) => call<Webhook>(`/webhooks/${id(webhookId)}`),
  /** Adds an endpoint; its signing secret is in this answer and nowhere after. */
  createWebhook: (webhook: NewWebhook) =>
    call<WebhookWithSecret>('/webhooks', { method: 'POST', body: webhook }),
  updateWebhook: (webhookId: string, change: WebhookChange) =>
    call<Webhook>(`/webhooks/${id(webhookId)}`, { method: 'PATCH', body: change }),
  removeWebhook: (webhookId: string) => call<Webhook>(`/webhooks/${id(webhookId)}`, { method: 'DELETE' }),
  /** A new signing secret; the one before keeps signing beside it for a day. */
  rotateWebhookSecret: (webhookId: string) =>
    call<WebhookWithSecret>(`/webhooks/${id(webhookId)}/rotate-secret`, { method: 'POST' }),
  testWebhook: (webhookId: string, type: EventType) =>
    call<WebhookTestSent>(`/webhooks/${id(webhookId)}/test`, { method: 'POST', body: { type } }),
  /** An endpoint's deliveries, newest first; `before` (a delivery id) pages to older ones. */
  deliveries: (webhookId: string, filter: { state?: DeliveryState; before?: number; limit?: number }) =>
    call<WebhookDelivery[]>(`/webhooks/${id(webhookId)}/deliveries${query(filter)}`),
  delivery: (webhookId: string, deliveryId: number) =>
    call<WebhookDeliveryDetail>(`/webhooks/${id(webhookId)}/deliveries/${deliveryId}`),
  /** Sends one delivery again, with the same event id. */
  replayDelivery: (webhookId: string, deliveryId: number) =>
    call<WebhookDelivery>(`/webhooks/${id(webhookId)}/deliveries/${deliveryId}/replay`, { method: 'POST' }),
  /** Sends again every failed delivery made since `since`; how many. */
  replayFailed: (webhookId: string, since: string) =>
    call<{ replayed: number }>(`/webhooks/${id(webhookId)}/deliveries/replay`, {
      method: 'POST',
      body: { since },
    }),

  /** Logged requests, newest first; `cursor` pages to older ones. */
  requests: async (filter: RequestFilter, page: { cursor?: string; limit?: number } = {}) => {
    const answer = await exchange<AdminLoggedRequest[]>(`/requests${query({ ...filter, ...page })}`);
    return {
      rows: answer.body,
      cursor: nextCursor(answer.headers.get('link')),
      requestId: answer.headers.get('x-request-id'),
    } satisfies RequestPage;
  },
  /** One logged request, by the `X-Request-Id` its client got. */
  request: (requestId: string) => call<AdminLoggedRequest>(`/requests/${id(requestId)}`),
  /**
   * Every row of a filter as a file: the session's header cannot ride on a plain link, so the console asks
   * for the export itself and hands the browser what came.
   */
  exportRequests: (filter: RequestFilter, format: 'ndjson' | 'csv') =>
    download(`/requests${query({ ...filter, format })}`),
  exportAudit: (filter: AuditFilter, format: 'ndjson' | 'csv') =>
    download(`/audit${query({ ...filter, order: 'desc', format })}`),
};
