export { deprecationHeaders, isPastSunset } from './headers.js';
export { registerDeprecation } from './hooks.js';
