export { localOnly } from './local.js';
export { type ReadinessCheck, registerHealth } from './routes.js';
