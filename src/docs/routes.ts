import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { JSON_CONTENT_TYPE, notFound } from '../http/index.js';
import { loadRedocBundle, type StaticAsset, staticAsset } from './assets.js';
import { DOCS_CSP, docsPage, INIT_SCRIPT, KEY_PAGE_CSP, keyPage } from './page.js';

/** One reference: a page that renders an OpenAPI document, and the document itself. */
export interface Reference {
  /** The page's title. */
  title: string;
  /** Where the page is, such as `/docs`. */
  page: string;
  /** Where the document is served, such as `/openapi.json`. */
  spec: string;
  /** The OpenAPI document, served as it is and rendered by the page. */
  document: Buffer;
  /** Whether the page has the try-it panel (the `/v1` reference; not the admin one). */
  tryIt?: boolean;
}

/** Where the key page is: the reader's own key, beside the reference. */
export const KEY_PAGE_PATH = '/docs/key';

const JAVASCRIPT = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
// The page links each script with a digest of its bytes in the URL, so a cached copy can never be stale.
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Reads a file of the installed package by its path in it, such as `dist/reference/key.js`. */
export type PackageFiles = (path: string) => string | undefined;

/** A file of the reference's browser parts (`npm run build` makes dist/reference), read once. */
function readAsset(files: PackageFiles, name: string): StaticAsset {
  const content = files(`dist/reference/${name}`);
  if (content === undefined) throw new Error(`dist/reference/${name} is missing: run npm run build`);
  return staticAsset(content);
}

const htmlHeaders = (csp: string) => ({
  'content-security-policy': csp,
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
});

/**
 * Serves the published references, no credential needed: each OpenAPI document (`GET /openapi.json` for the
 * API, `GET /admin/openapi.json` for the admin API) and its HTML page (`/docs`, `/docs/admin`), where Redoc,
 * from the installed package, renders it; on `/docs` our try-it panel joins it. The reader's key page is at
 * `/docs/key`. The pages and their scripts come from this server only (`/docs/redoc.standalone.js`,
 * `/docs/init.js`, `/docs/assets/…` from dist/reference), under a strict Content-Security-Policy.
 */
export function registerDocs(
  app: FastifyInstance,
  references: readonly Reference[],
  files: PackageFiles,
): void {
  const assets = new Map<string, { asset: StaticAsset; type: string }>([
    ['/docs/redoc.standalone.js', { asset: loadRedocBundle(), type: JAVASCRIPT }],
    ['/docs/init.js', { asset: staticAsset(INIT_SCRIPT), type: JAVASCRIPT }],
  ]);
  for (const name of ['try-it.js', 'try-it.css', 'key.js', 'key.css'])
    assets.set(`/docs/assets/${name}`, {
      asset: readAsset(files, name),
      type: name.endsWith('.js') ? JAVASCRIPT : CSS,
    });
  const url = (path: string) => `${path}?v=${assets.get(path)?.asset.digest}`;

  for (const reference of references) {
    const { document } = reference;
    app.get(reference.spec, async (_request, reply) => reply.type(JSON_CONTENT_TYPE).send(document));
    const page = docsPage(reference.title, {
      spec: reference.spec,
      redoc: url('/docs/redoc.standalone.js'),
      init: url('/docs/init.js'),
      ...(reference.tryIt
        ? { tryIt: { script: url('/docs/assets/try-it.js'), styles: url('/docs/assets/try-it.css') } }
        : {}),
    });
    app.get(reference.page, async (_request, reply) =>
      reply.headers(htmlHeaders(DOCS_CSP)).type('text/html; charset=utf-8').send(page),
    );
  }

  const key = keyPage({ script: url('/docs/assets/key.js'), styles: url('/docs/assets/key.css') });
  app.get(KEY_PAGE_PATH, async (_request, reply) =>
    reply
      .headers({ ...htmlHeaders(KEY_PAGE_CSP), 'x-frame-options': 'DENY' })
      .type('text/html; charset=utf-8')
      .send(key),
  );

  for (const [path, { asset, type }] of assets) {
    app.get(path, async (request: FastifyRequest, reply: FastifyReply) =>
      reply
        // Only the versioned URL is forever: the bare path names whichever bytes are installed now.
        .header(
          'cache-control',
          (request.query as { v?: unknown }).v === asset.digest ? IMMUTABLE : 'no-cache',
        )
        .type(type)
        .send(asset.body),
    );
  }
  // A missing asset is a 404, not a page: a script tag given HTML would fail in a confusing way.
  app.get('/docs/assets/*', notFound);
}
