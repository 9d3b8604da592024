import type { FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_PAGE_LIMIT } from '../contract/index.js';

/** One page asked for with `limit` and `after`; undefined when neither was given (the whole list). */
export function pageAsked<A>(query: {
  limit?: number;
  after?: A;
}): { limit: number; after: A | undefined } | undefined {
  if (query.limit === undefined && query.after === undefined) return undefined;
  return { limit: query.limit ?? DEFAULT_PAGE_LIMIT, after: query.after };
}

/**
 * The `Link` of the next page (RFC 8288, as GitHub's API pages): the request's own path and query with
 * `after` (or the list's own paging parameter, such as the request log's `cursor`) moved on and `limit`
 * kept, as a path-absolute reference, so it stays on whatever host was asked.
 */
export function nextPageLink(
  request: FastifyRequest,
  after: string | number,
  limit: number,
  parameter = 'after',
): string {
  const url = new URL(request.url, 'http://service.invalid');
  url.searchParams.set('limit', String(limit));
  url.searchParams.set(parameter, String(after));
  return `<${url.pathname}${url.search}>; rel="next"`;
}

/**
 * The page to answer from `found`, which storage was asked for with one row more than `limit`: that row, if
 * it came, says another page follows, and the `Link` to it goes on from the page's last item.
 */
export function cutPage<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  found: T[],
  limit: number,
  cursorOf: (last: T) => string | number,
  parameter = 'after',
): T[] {
  const items = found.slice(0, limit);
  const last = items.at(-1);
  if (found.length > limit && last !== undefined) {
    reply.header('link', nextPageLink(request, cursorOf(last), limit, parameter));
  }
  return items;
}
