export { createAccountHandlers } from './routes.js';
