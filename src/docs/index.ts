export { registerDocs } from './routes.js';
