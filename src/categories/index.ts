export { createCategoryHandlers } from './routes.js';
export { createCategoryService } from './service.js';
