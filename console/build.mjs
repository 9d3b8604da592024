// Builds the console: type-checks it (esbuild only strips types), then bundles it into dist/console/app.js
// and app.css, minified, and prints their gzipped sizes against the budget. The server reads these two files
// and versions their URLs by digest, so the names here stay fixed.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.join(HERE, '..', 'dist', 'console');
/** The budget for the console's JavaScript and CSS together, gzipped. */
const BUDGET_BYTES = 150 * 1024;

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const checked = spawnSync(process.execPath, [tsc, '-p', path.join(HERE, 'tsconfig.json')], {
  stdio: 'inherit',
});
if (checked.status !== 0) process.exit(checked.status ?? 1);

await build({
  entryPoints: { app: path.join(HERE, 'src', 'main.tsx') },
  outdir: OUT,
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});

let total = 0;
for (const name of ['app.js', 'app.css']) {
  const size = gzipSync(readFileSync(path.join(OUT, name)), { level: 9 }).length;
  total += size;
  console.log(`console: dist/console/${name} ${(size / 1024).toFixed(1)} KB gzipped`);
}
console.log(`console: ${(total / 1024).toFixed(1)} KB gzipped of a ${BUDGET_BYTES / 1024} KB budget`);
if (total > BUDGET_BYTES) {
  console.error('console: over budget');
  process.exit(1);
}
