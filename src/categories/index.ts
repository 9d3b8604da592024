export { createCategoryHandlers } from './routes.js';
export { type CategoryService, createCategoryService } from './service.js';
