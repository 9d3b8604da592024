export { type StaticAsset, staticAsset } from './assets.js';
export {
  GUIDE_PARTS,
  GUIDES,
  GUIDES_PATH,
  type Guide,
  guideHref,
  guideUrl,
} from './guides.js';
export { type PackageFiles, type Reference, registerDocs } from './routes.js';
export {
  type CodeSample,
  codeSamples,
  DEFAULT_ORIGIN,
  exampleRequest,
  hasBody,
  requestHeaders,
  requestTarget,
  type SampleRequest,
  withCodeSamples,
} from './samples.js';
