export { registerDeprecation } from './hooks.js';
