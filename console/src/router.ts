import { signal } from '@preact/signals';
import { REQUEST_ID_PATTERN } from '../../src/contract/request-id.js';
import type { RequestFilter } from './api.js';

/** Where the console is served; every page's URL is below it, and the server answers each with the app. */
export const BASE = '/console';

/** The page the URL names. */
export type Route =
  | { page: 'domains' }
  | { page: 'domain'; name: string }
  | { page: 'keys' }
  | { page: 'key'; id: string }
  | { page: 'usage' }
  | { page: 'audit' }
  | { page: 'requests' }
  | { page: 'request'; id: string }
  | { page: 'webhooks' }
  | { page: 'webhook'; id: string }
  | { page: 'admin-tokens' }
  | { page: 'people' }
  | { page: 'not-found' };

/** The browser's location, as the console reads it: changed by `navigate` and by back and forward. */
export const location = signal({ pathname: window.location.pathname, search: window.location.search });

function segment(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/** The shape of a key's public id (the admin API's `KeyId`). */
const KEY_ID = /^key_[0-9A-Za-z]{12}$/;
/** The shape of a request id the request log takes (the admin API's `requestId`). */
const REQUEST_ID = new RegExp(REQUEST_ID_PATTERN);

/** The shape of a webhook endpoint's id (the admin API's `WebhookParams`). */
const WEBHOOK_ID = /^we_[0-9a-f]{20}$/;

/** The page of a path such as `/console/keys/key_3fK9x2LmQ8aZ`; the console's home is the domains page. */
export function routeOf(pathname: string): Route {
  const parts = pathname.replace(/\/+$/, '').split('/').slice(2);
  const [section, item, extra] = parts.map(segment);
  if (extra !== undefined || parts.some((part) => segment(part) === undefined)) return { page: 'not-found' };
  if (section === undefined || (section === 'domains' && item === undefined)) return { page: 'domains' };
  if (section === 'domains' && item) return { page: 'domain', name: item };
  if (section === 'keys' && item === undefined) return { page: 'keys' };
  // A key id has one shape: anything else is no key, answered without asking the server or echoing it.
  if (section === 'keys' && item)
    return KEY_ID.test(item) ? { page: 'key', id: item } : { page: 'not-found' };
  if (section === 'usage' && item === undefined) return { page: 'usage' };
  if (section === 'audit' && item === undefined) return { page: 'audit' };
  if (section === 'requests' && item === undefined) return { page: 'requests' };
  if (section === 'requests' && item)
    return REQUEST_ID.test(item) ? { page: 'request', id: item } : { page: 'not-found' };
  if (section === 'admin-tokens' && item === undefined) return { page: 'admin-tokens' };
  if (section === 'people' && item === undefined) return { page: 'people' };
  if (section === 'webhooks' && item === undefined) return { page: 'webhooks' };
  if (section === 'webhooks' && item)
    return WEBHOOK_ID.test(item) ? { page: 'webhook', id: item } : { page: 'not-found' };
  return { page: 'not-found' };
}

/** The URL of a page below the console, each part escaped. */
export const href = (...parts: string[]) => [BASE, ...parts.map(encodeURIComponent)].join('/');

/**
 * The Requests page's URL for a filter: what a key's page, a request and the usage charts link to. Its `api`
 * is the page's (`admin`, `all`; the API's when unset), not the admin API's.
 */
export function requestsHref(filter: Omit<RequestFilter, 'api'> & { api?: string }): string {
  const params = new URLSearchParams(
    Object.entries(filter).filter((entry): entry is [string, string] => Boolean(entry[1])),
  );
  const query = params.toString();
  return `${BASE}/requests${query ? `?${query}` : ''}`;
}

/** Goes to a page of the console without a reload; `replace` keeps the history as it is (a redirect). */
export function navigate(to: string, { replace = false } = {}): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  location.value = { pathname: window.location.pathname, search: window.location.search };
}

/**
 * Follows back and forward, and turns clicks on the console's own links into `navigate`: plain left clicks
 * only, so a middle click or Ctrl+click still opens a new tab as on any link.
 */
export function startRouting(): void {
  window.addEventListener('popstate', () => {
    location.value = { pathname: window.location.pathname, search: window.location.search };
  });
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = (event.target as Element | null)?.closest?.('a');
    // A link marked `data-server` leaves the app for a page of the server (a sign-in with the provider).
    if (!link || link.target || link.hasAttribute('download') || link.hasAttribute('data-server')) return;
    // A link within the page (the skip link) is the browser's to follow: it moves focus there.
    if (link.getAttribute('href')?.startsWith('#')) return;
    const url = new URL(link.href);
    if (
      url.origin !== window.location.origin ||
      !(url.pathname === BASE || url.pathname.startsWith(`${BASE}/`))
    )
      return;
    event.preventDefault();
    navigate(url.pathname + url.search);
  });
}
