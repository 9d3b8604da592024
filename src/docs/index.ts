export { type DocsOptions, registerDocs } from './routes.js';
