export { createCategoryHandlers } from './routes.js';
export { type CategoryList, type CategoryService, createCategoryService } from './service.js';
