import type { FastifyInstance } from 'fastify';
import { JSON_CONTENT_TYPE } from '../http/index.js';
import { loadRedocBundle, staticAsset } from './assets.js';
import { DOCS_CSP, docsPage, INIT_SCRIPT } from './page.js';

/** What the reference serves. */
export interface DocsOptions {
  /** The page's title. */
  title: string;
  /** The OpenAPI document, served as it is at `/openapi.json` and rendered by the page. */
  document: Buffer;
}

/** Where the document is served. */
const SPEC_URL = '/openapi.json';

const JAVASCRIPT = 'text/javascript; charset=utf-8';
// The page links each script with a digest of its bytes in the URL, so a cached copy can never be stale.
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Serves the published reference, no API key needed: the OpenAPI document at `GET /openapi.json`, and the
 * HTML reference at `GET /docs`, where Redoc, from the installed package, renders it. The page and its
 * scripts come from this server only (`/docs/redoc.standalone.js`, `/docs/init.js`), under a strict
 * Content-Security-Policy.
 */
export function registerDocs(app: FastifyInstance, options: DocsOptions): void {
  const { document } = options;
  app.get(SPEC_URL, async (_request, reply) => reply.type(JSON_CONTENT_TYPE).send(document));
  const redoc = loadRedocBundle();
  const init = staticAsset(INIT_SCRIPT);
  const page = docsPage(options.title, {
    spec: SPEC_URL,
    redoc: `/docs/redoc.standalone.js?v=${redoc.digest}`,
    init: `/docs/init.js?v=${init.digest}`,
  });

  app.get('/docs', async (_request, reply) =>
    reply
      .headers({
        'content-security-policy': DOCS_CSP,
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-cache',
      })
      .type('text/html; charset=utf-8')
      .send(page),
  );
  for (const [path, asset] of [
    ['/docs/redoc.standalone.js', redoc],
    ['/docs/init.js', init],
  ] as const) {
    app.get(path, async (request, reply) =>
      reply
        // Only the versioned URL is forever: the bare path names whichever bytes are installed now.
        .header(
          'cache-control',
          (request.query as { v?: unknown }).v === asset.digest ? IMMUTABLE : 'no-cache',
        )
        .type(JAVASCRIPT)
        .send(asset.body),
    );
  }
}
