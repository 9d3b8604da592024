// The one way a browser app of this package is built, shared by the console (console/build.mjs) and the
// reference's panel and key page (reference/build.mjs): type-check its folder (esbuild only strips types),
// bundle each entry minified into dist/<name>, and answer the gzipped size of each file it names.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/**
 * Builds the app in `folder` (its tsconfig.json checks it) into dist/<name>; prints and answers the gzipped
 * bytes of each of `files` there. Exits the process when the type check fails.
 */
export async function bundle({ name, folder, entryPoints, files }) {
  const out = path.join(folder, '..', 'dist', name);
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const checked = spawnSync(process.execPath, [tsc, '-p', path.join(folder, 'tsconfig.json')], {
    stdio: 'inherit',
  });
  if (checked.status !== 0) process.exit(checked.status ?? 1);
  await build({
    entryPoints,
    outdir: out,
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
  for (const file of files) {
    const size = gzipSync(readFileSync(path.join(out, file)), { level: 9 }).length;
    total += size;
    console.log(`${name}: dist/${name}/${file} ${(size / 1024).toFixed(1)} KB gzipped`);
  }
  return total;
}
