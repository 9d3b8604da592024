// Builds the console: type-checks it (esbuild only strips types), then bundles it into dist/console/app.js
// and app.css, minified, and prints their gzipped sizes against the budget. The server reads these two files
// and versions their URLs by digest, so the names here stay fixed.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from '../kit/bundle.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The budget for the console's JavaScript and CSS together, gzipped. */
const BUDGET_BYTES = 150 * 1024;

const total = await bundle({
  name: 'console',
  folder: HERE,
  entryPoints: { app: path.join(HERE, 'src', 'main.tsx') },
  files: ['app.js', 'app.css'],
});
console.log(`console: ${(total / 1024).toFixed(1)} KB gzipped of a ${BUDGET_BYTES / 1024} KB budget`);
if (total > BUDGET_BYTES) {
  console.error('console: over budget');
  process.exit(1);
}
