import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ifNoneMatchMatches,
  nextPageLink,
  type OperationHandlers,
  pageAsked,
  sendPrepared,
} from '../http/index.js';
import { type IdempotentCreates, sendAnswer } from '../idempotency/index.js';
import type { CategoryList, CategoryPage, CategoryService } from './service.js';

/**
 * Sends the list (or a page of it, with the `Link` to the next), or 304 when the client's validator
 * matches: a 304 costs no bytes.
 */
function sendList(
  request: FastifyRequest,
  reply: FastifyReply,
  list: Omit<CategoryList, 'rows'>,
  link?: string,
): undefined {
  if (link !== undefined) reply.header('link', link);
  if (ifNoneMatchMatches(request.headers['if-none-match'], list.etag)) {
    reply.headers(list.notModifiedHeaders).code(304).send();
    return undefined;
  }
  return sendPrepared(request, reply, list.body, list.headers);
}

function sendPage(
  request: FastifyRequest,
  reply: FastifyReply,
  page: CategoryPage,
  limit: number,
): undefined {
  const link = page.nextAfter === undefined ? undefined : nextPageLink(request, page.nextAfter, limit);
  return sendList(request, reply, page, link);
}

/** The handlers of `listCategories` and `createCategory`. */
export function createCategoryHandlers(deps: {
  categories: CategoryService;
  creates: IdempotentCreates;
}): Pick<OperationHandlers, 'listCategories' | 'createCategory'> {
  const { categories, creates } = deps;
  return {
    listCategories: {
      prepared(request, reply) {
        const page = pageAsked(request.query);
        if (page !== undefined) {
          return categories
            .page(page.limit, page.after ?? 0)
            .then((found) => sendPage(request, reply, found, page.limit));
        }
        const cached = categories.current();
        // The hot path answers without a promise: an async handler costs a microtask turn per request.
        if (cached !== undefined) return sendList(request, reply, cached);
        return categories.list().then((list) => sendList(request, reply, list));
      },
    },
    async createCategory(request, reply) {
      const { answer } = await creates.run(request, 'createCategory', request.body);
      // Committed: the next list, even one asked for before this answer arrives, must hold it.
      if (!answer.replayed) categories.invalidate();
      return sendAnswer(reply, answer);
    },
  };
}
