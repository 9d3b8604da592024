export { isLocalRequest, localOnly } from './local.js';
export { HEALTH_PATHS, type ReadinessCheck, registerHealth } from './routes.js';
