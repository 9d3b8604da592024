// Builds the reference's browser parts: the try-it panel that joins Redoc on /docs (try-it.js and .css), the
// key page at /docs/key (key.js and .css), the guides' stylesheet (guides.css; the server renders the
// guides' Markdown itself) and that of the pages Redoc renders (redoc.css, with the site's menu). It type-checks them (esbuild only strips types), bundles
// them minified into dist/reference, and prints their gzipped sizes. The server versions their URLs by digest,
// so the names here stay fixed.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from '../kit/bundle.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));

await bundle({
  name: 'reference',
  folder: HERE,
  entryPoints: {
    'try-it': path.join(HERE, 'src', 'try-it', 'main.tsx'),
    key: path.join(HERE, 'src', 'key', 'main.tsx'),
    guides: path.join(HERE, 'src', 'guides', 'guides.css'),
    redoc: path.join(HERE, 'src', 'site', 'redoc.css'),
  },
  files: ['redoc.css', 'try-it.js', 'try-it.css', 'key.js', 'key.css', 'guides.css'],
});
