import type { FastifyInstance } from 'fastify';
import { JSON_CONTENT_TYPE } from '../http/index.js';
import { loadRedocBundle, staticAsset } from './assets.js';
import { DOCS_CSP, docsPage, INIT_SCRIPT } from './page.js';

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
}

const JAVASCRIPT = 'text/javascript; charset=utf-8';
// The page links each script with a digest of its bytes in the URL, so a cached copy can never be stale.
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Serves the published references, no credential needed: each OpenAPI document (`GET /openapi.json` for the
 * API, `GET /admin/openapi.json` for the admin API) and its HTML page (`/docs`, `/docs/admin`), where Redoc,
 * from the installed package, renders it. The pages and their scripts come from this server only
 * (`/docs/redoc.standalone.js`, `/docs/init.js`), under a strict Content-Security-Policy.
 */
export function registerDocs(app: FastifyInstance, references: readonly Reference[]): void {
  const redoc = loadRedocBundle();
  const init = staticAsset(INIT_SCRIPT);
  for (const reference of references) {
    const { document } = reference;
    app.get(reference.spec, async (_request, reply) => reply.type(JSON_CONTENT_TYPE).send(document));
    const page = docsPage(reference.title, {
      spec: reference.spec,
      redoc: `/docs/redoc.standalone.js?v=${redoc.digest}`,
      init: `/docs/init.js?v=${init.digest}`,
    });
    app.get(reference.page, async (_request, reply) =>
      reply
        .headers({
          'content-security-policy': DOCS_CSP,
          'referrer-policy': 'no-referrer',
          'cache-control': 'no-cache',
        })
        .type('text/html; charset=utf-8')
        .send(page),
    );
  }
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
