export { type StaticAsset, staticAsset } from './assets.js';
export { type Reference, registerDocs } from './routes.js';
export { withCodeSamples } from './samples.js';
