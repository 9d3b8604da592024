export { createPetHandlers } from './routes.js';
