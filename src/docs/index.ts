export { type Reference, registerDocs } from './routes.js';
