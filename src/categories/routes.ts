import type { NewCategory } from '../contract/index.js';
import { ifNoneMatchMatches, JSON_CONTENT_TYPE, type OperationHandlers } from '../http/index.js';
import type { CategoryService } from './service.js';

/** The handlers of `listCategories` and `createCategory`. */
export function createCategoryHandlers(deps: {
  categories: CategoryService;
}): Pick<OperationHandlers, 'listCategories' | 'createCategory'> {
  const { categories } = deps;
  return {
    async listCategories(request, reply) {
      const list = categories.current() ?? (await categories.list());
      reply.header('etag', list.etag);
      // Compare validators before touching the body: a 304 costs no bytes.
      if (ifNoneMatchMatches(request.headers['if-none-match'], list.etag)) {
        return reply.code(304).send();
      }
      return reply.type(JSON_CONTENT_TYPE).send(list.body);
    },
    async createCategory(request, reply) {
      const category = await categories.create(request.body as NewCategory);
      return reply.code(201).send(category);
    },
  };
}
