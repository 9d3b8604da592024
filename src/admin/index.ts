export { type AdminHandlerDeps, createAdminHandlers } from './handlers.js';
