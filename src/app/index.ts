export { type AppDeps, buildApp } from './app.js';
export { type ComposeOptions, composeApp } from './compose.js';
export { type RunningServer, startServer } from './server.js';
export { keepTickShape } from './tick-shape.js';
export { HTTP_TIMEOUTS } from './timeouts.js';
