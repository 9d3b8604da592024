// Builds the reference's two browser parts: the try-it panel that joins Redoc on /docs (try-it.js and .css)
// and the key page at /docs/key (key.js and .css). It type-checks them (esbuild only strips types), bundles
// them minified into dist/reference, and prints their gzipped sizes. The server versions their URLs by digest,
// so the names here stay fixed.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.join(HERE, '..', 'dist', 'reference');

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const checked = spawnSync(process.execPath, [tsc, '-p', path.join(HERE, 'tsconfig.json')], {
  stdio: 'inherit',
});
if (checked.status !== 0) process.exit(checked.status ?? 1);

await build({
  entryPoints: {
    'try-it': path.join(HERE, 'src', 'try-it', 'main.tsx'),
    key: path.join(HERE, 'src', 'key', 'main.tsx'),
  },
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

for (const name of ['try-it.js', 'try-it.css', 'key.js', 'key.css']) {
  const size = gzipSync(readFileSync(path.join(OUT, name)), { level: 9 }).length;
  console.log(`reference: dist/reference/${name} ${(size / 1024).toFixed(1)} KB gzipped`);
}
