import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { JSON_CONTENT_TYPE, notFound, transportSecurity } from '../http/index.js';
import { loadRedocBundle, type StaticAsset, staticAsset } from './assets.js';
import {
  GUIDE_IMAGE,
  GUIDE_PARTS,
  GUIDES,
  GUIDES_PATH,
  type Guide,
  guideUrl,
  MOVED_GUIDES,
} from './guides.js';
import {
  DOCS_CSP,
  docsPage,
  escapeHtml,
  GUIDES_CSP,
  guidePage,
  INIT_SCRIPT,
  KEY_PAGE_CSP,
  keyPage,
} from './page.js';
import type { RenderedGuide } from './render.js';
import { absoluteBaseUrl, baseUrlOf, withCodeSamples } from './samples.js';

type Json = Record<string, unknown>;

/** One reference: a page that renders an OpenAPI document, and the document itself. */
export interface Reference {
  /** The page's title. */
  title: string;
  /** Where the page is, such as `/docs`. */
  page: string;
  /** Where the document is served, such as `/openapi.json`. */
  spec: string;
  /** The OpenAPI document, served and rendered by the page. */
  document: Json;
  /**
   * Whether the reference is the `/v1` one: its document gets code samples, and its page the try-it panel
   * and the samples with the reader's key. The admin reference has neither.
   */
  tryIt?: boolean;
}

/** Where the key page is: the reader's own key, beside the reference. */
export const KEY_PAGE_PATH = '/docs/key';

const JAVASCRIPT = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
// The page links each script with a digest of its bytes in the URL, so a cached copy can never be stale.
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Reads a file of the installed package by its path in it, such as `dist/reference/key.js`. */
export type PackageFiles = (path: string) => Buffer | undefined;

/** A file of the reference's browser parts (`npm run build` makes dist/reference), read once. */
function readAsset(files: PackageFiles, name: string): StaticAsset {
  const content = files(`dist/reference/${name}`);
  if (content === undefined) throw new Error(`dist/reference/${name} is missing: run npm run build`);
  return staticAsset(content);
}

// A name or an address as a Host header carries it, with its port: nothing a shell or JSON would read as
// anything else, since the origin is written into samples that readers paste into a terminal.
const PLAIN_HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/**
 * The origin a request reached this server at, as the reader wrote it: Fastify's protocol and host, which
 * are X-Forwarded-Proto and X-Forwarded-Host when `TRUST_PROXY` believes the proxy (as the Caddy of
 * docs/production.md is). Undefined when the host is not a plain name or address.
 */
function requestOrigin(request: FastifyRequest): string | undefined {
  const host = request.host.toLowerCase();
  return PLAIN_HOST.test(host) ? `${request.protocol}://${host}` : undefined;
}

/** How many origins' documents are kept: a service is reached by a few names; any Host can be sent. */
const ORIGINS_KEPT = 16;

/**
 * The bytes of a reference's document for a request. The `/v1` document's code samples send to its first
 * server: an absolute one as it is; a relative one (`/v1`, when no public URL is configured) on the origin the
 * document was asked at, as OpenAPI resolves it, so that they are right on any port and any custom domain.
 * Each origin's document is built once (about 4 ms) and kept; a Host that cannot be written into a sample
 * gets the document without samples.
 */
function documentBytes(reference: Reference): (request: FastifyRequest) => Buffer {
  const json = (document: Json) => Buffer.from(JSON.stringify(document));
  const bare = json(reference.document);
  if (!reference.tryIt) return () => bare;
  const absolute = absoluteBaseUrl(reference.document);
  if (absolute !== undefined) {
    const bytes = json(withCodeSamples(reference.document, absolute));
    return () => bytes;
  }
  const kept = new Map<string, Buffer>();
  return (request) => {
    const origin = requestOrigin(request);
    if (origin === undefined) return bare;
    const base = baseUrlOf(reference.document, origin);
    let bytes = kept.get(base);
    if (bytes === undefined) {
      bytes = json(withCodeSamples(reference.document, base));
      const oldest = kept.keys().next();
      if (kept.size >= ORIGINS_KEPT && !oldest.done) kept.delete(oldest.value);
      kept.set(base, bytes);
    }
    return bytes;
  };
}

/** The headers of every page of the reference: its policy, and HSTS once reached over HTTPS. */
const htmlHeaders = (request: FastifyRequest, csp: string) => ({
  'content-security-policy': csp,
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
  ...transportSecurity(request),
});

/**
 * Serves the published references, no credential needed: each OpenAPI document (`GET /openapi.json` for the
 * API, `GET /admin/openapi.json` for the admin API) and its HTML page (`/docs`, `/docs/admin`), where Redoc,
 * from the installed package, renders it; on `/docs` our try-it panel joins it. The reader's key page is at
 * `/docs/key`, and the guides, `docs/*.md` rendered, at `/docs/guides`. The pages and their scripts come from
 * this server only (`/docs/redoc.standalone.js`,
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
  for (const name of ['redoc.css', 'try-it.js', 'try-it.css', 'key.js', 'key.css', 'guides.css'])
    assets.set(`/docs/assets/${name}`, {
      asset: readAsset(files, name),
      type: name.endsWith('.js') ? JAVASCRIPT : CSS,
    });
  const url = (path: string) => `${path}?v=${assets.get(path)?.asset.digest}`;

  for (const reference of references) {
    const document = documentBytes(reference);
    app.get(reference.spec, async (request, reply) => reply.type(JSON_CONTENT_TYPE).send(document(request)));
    const page = docsPage(reference.title, reference.page, {
      spec: reference.spec,
      redoc: url('/docs/redoc.standalone.js'),
      init: url('/docs/init.js'),
      styles: url('/docs/assets/redoc.css'),
      ...(reference.tryIt
        ? { tryIt: { script: url('/docs/assets/try-it.js'), styles: url('/docs/assets/try-it.css') } }
        : {}),
    });
    app.get(reference.page, async (request, reply) =>
      reply.headers(htmlHeaders(request, DOCS_CSP)).type('text/html; charset=utf-8').send(page),
    );
  }

  const key = keyPage({ script: url('/docs/assets/key.js'), styles: url('/docs/assets/key.css') });
  app.get(KEY_PAGE_PATH, async (request, reply) =>
    reply
      .headers({ ...htmlHeaders(request, KEY_PAGE_CSP), 'x-frame-options': 'DENY' })
      .type('text/html; charset=utf-8')
      .send(key),
  );

  registerGuides(app, files, url('/docs/assets/guides.css'));

  // A page's address with a trailing slash (`/docs/`, as people type it and links end it) is sent to the page,
  // not answered with the API's JSON 404: these are pages, and their address is without it.
  for (const page of [...references.map((reference) => reference.page), KEY_PAGE_PATH, GUIDES_PATH]) {
    app.get(`${page}/`, async (request, reply) => {
      const query = request.url.indexOf('?');
      return reply.redirect(`${page}${query === -1 ? '' : request.url.slice(query)}`, 301);
    });
  }

  for (const [path, { asset, type }] of assets) {
    app.get<{ Querystring: { v?: unknown } }>(path, async (request, reply) =>
      reply
        // Only the versioned URL is forever: the bare path names whichever bytes are installed now.
        .header('cache-control', request.query.v === asset.digest ? IMMUTABLE : 'no-cache')
        .type(type)
        .send(asset.body),
    );
  }
  // A missing asset is a 404, not a page: a script tag given HTML would fail in a confusing way.
  app.get('/docs/assets/*', notFound);
}

/** The guides by part, as HTML: each part's heading, then its guides, each as `item` writes it. */
function byPart(list: (items: string) => string, item: (guide: Guide) => string): string {
  return Object.entries(GUIDE_PARTS)
    .map(([part, heading]) => {
      const items = GUIDES.filter((guide) => guide.part === part).map(item);
      return `<h2>${escapeHtml(heading)}</h2>\n${list(items.join(''))}`;
    })
    .join('\n');
}

/** The index's list: every guide with its summary. */
const guideIndex = () =>
  byPart(
    (items) => `<dl class="guide-list">${items}</dl>`,
    (guide) =>
      `<dt><a href="${guideUrl(guide.slug)}">${escapeHtml(guide.title)}</a></dt><dd>${escapeHtml(guide.summary)}</dd>`,
  );

/** The list beside a guide: every guide, the current one marked and followed by its sections. */
const guideContents = (current: string, sections: RenderedGuide['sections']) =>
  byPart(
    (items) => `<ul>${items}</ul>`,
    (guide) => {
      if (guide.slug !== current)
        return `<li><a href="${guideUrl(guide.slug)}">${escapeHtml(guide.title)}</a></li>`;
      const within = sections.map(
        (section) => `<li><a href="#${escapeHtml(section.id)}">${escapeHtml(section.title)}</a></li>`,
      );
      return `<li><a href="${guideUrl(guide.slug)}" aria-current="page">${escapeHtml(guide.title)}</a>${within.length > 0 ? `<ul class="sections">${within.join('')}</ul>` : ''}</li>`;
    },
  );

/**
 * Serves the guides: `GET /docs/guides` lists them, `GET /docs/guides/<slug>` is `docs/<slug>.md` rendered
 * (on its first request, then kept), and the images they show (`docs/*.png`) beside them. No script runs on these pages.
 */
function registerGuides(app: FastifyInstance, files: PackageFiles, styles: string): void {
  const send = (reply: FastifyReply, html: string) =>
    reply.headers(htmlHeaders(reply.request, GUIDES_CSP)).type('text/html; charset=utf-8').send(html);
  const slugs = new Set(GUIDES.map((guide) => guide.slug));
  const index = guidePage({
    title: 'Guides',
    path: GUIDES_PATH,
    styles,
    main: `<h1>Guides</h1>
<p>How to use the Pet Store API and how to run it. The operations themselves are in the <a href="/docs">API reference</a>.</p>
${guideIndex()}`,
  });
  app.get(GUIDES_PATH, async (_request, reply) => send(reply, index));

  const pages = new Map<string, string>();
  const page = async (slug: string): Promise<string | undefined> => {
    const cached = pages.get(slug);
    if (cached !== undefined) return cached;
    const guide = GUIDES.find((candidate) => candidate.slug === slug);
    const markdown = guide === undefined ? undefined : files(`docs/${slug}.md`);
    if (guide === undefined || markdown === undefined) return undefined;
    const { renderGuide } = await import('./render.js');
    const rendered = renderGuide(markdown.toString('utf8'), slugs);
    const html = guidePage({
      title: guide.title,
      path: guideUrl(slug),
      styles,
      contents: guideContents(slug, rendered.sections),
      main: rendered.html,
    });
    pages.set(slug, html);
    return html;
  };
  app.get<{ Params: { name: string } }>(guideUrl(':name'), async (request, reply) => {
    const { name } = request.params;
    const moved = Object.hasOwn(MOVED_GUIDES, name) ? MOVED_GUIDES[name] : undefined;
    if (moved !== undefined) return reply.redirect(guideUrl(moved), 301);
    const html = await page(name);
    if (html !== undefined) return send(reply, html);
    const image = GUIDE_IMAGE.test(name) ? files(`docs/${name}`) : undefined;
    if (image === undefined) return notFound(request, reply);
    return reply.header('cache-control', 'no-cache').type('image/png').send(image);
  });
}
