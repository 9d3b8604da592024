export { registerAccessLog } from './hook.js';
