import type { FastifyReply, FastifyRequest } from 'fastify';
import type { NewCategory } from '../contract/index.js';
import { ifNoneMatchMatches, type OperationHandlers, sendPrepared } from '../http/index.js';
import { type IdempotentCreates, sendAnswer } from '../idempotency/index.js';
import type { CategoryList, CategoryService } from './service.js';

/** Sends the list, or 304 when the client's validator matches: a 304 costs no bytes. */
function sendList(request: FastifyRequest, reply: FastifyReply, list: CategoryList): undefined {
  if (ifNoneMatchMatches(request.headers['if-none-match'], list.etag)) {
    reply.headers(list.notModifiedHeaders).code(304).send();
    return undefined;
  }
  return sendPrepared(request, reply, list.body, list.headers);
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
        const cached = categories.current();
        // The hot path answers without a promise: an async handler costs a microtask turn per request.
        if (cached !== undefined) return sendList(request, reply, cached);
        return categories.list().then((list) => sendList(request, reply, list));
      },
    },
    async createCategory(request, reply) {
      const { answer } = await creates.run(request, 'createCategory', request.body as NewCategory);
      // Committed: the next list, even one asked for before this answer arrives, must hold it.
      if (!answer.replayed) categories.invalidate();
      return sendAnswer(reply, answer);
    },
  };
}
