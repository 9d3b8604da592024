export { createOrderHandlers } from './routes.js';
