export { deprecationHeaders, isPastSunset } from './headers.js';
export { registerDeprecationHeaders, registerSunset } from './hooks.js';
