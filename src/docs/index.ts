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
  exampleRequest,
  hasBody,
  requestHeaders,
  requestTarget,
  type SampleRequest,
} from './samples.js';
