/**
 * The reference page's Content-Security-Policy. Nothing but this server may be reached, and no inline script
 * runs. Two allowances are Redoc's: styled-components injects `<style>` elements (`style-src
 * 'unsafe-inline'`), and the search index runs in a worker made from a `blob:` URL (`worker-src blob:`).
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  'worker-src blob:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The pages of the reference's site, in the menu every one of them shows. */
const SITE_PAGES = [
  { name: 'API reference', path: '/docs' },
  { name: 'Admin API reference', path: '/docs/admin' },
  { name: 'Your key', path: '/docs/key' },
  { name: 'Guides', path: '/docs/guides' },
  { name: 'Console', path: '/console' },
] as const;

/**
 * The site's menu, the same on the references, the key page and the guides, so that each reaches the others
 * and the console; `current` is the path of the page it is on.
 */
export function siteHeader(current: string): string {
  const links = SITE_PAGES.map(
    ({ name, path }) =>
      `<a href="${path}"${path === current ? ' aria-current="page"' : ''}>${escapeHtml(name)}</a>`,
  );
  return `<header class="site">
<a class="site-name" href="/docs/guides">Pet Store API</a>
<nav aria-label="Site">${links.join(' ')}</nav>
</header>`;
}

/** Where the page finds its parts. */
export interface PageUrls {
  /** The OpenAPI document to render. */
  spec: string;
  /** Redoc's standalone bundle. */
  redoc: string;
  /** The script that starts Redoc (`INIT_SCRIPT`). */
  init: string;
  /** The stylesheet of the site's menu and of what it changes of Redoc's page. */
  styles: string;
  /** The try-it panel's script and styles, on the pages that have it. */
  tryIt?: { script: string; styles: string };
}

/** Text made safe inside HTML, in text and in quoted attributes alike. */
export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/**
 * The HTML of the reference page: an empty root that `INIT_SCRIPT` fills with Redoc. The icon is an empty
 * `data:` URL so the browser does not ask for `/favicon.ico`.
 */
export function docsPage(title: string, path: string, urls: PageUrls): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${escapeHtml(urls.styles)}">
${urls.tryIt ? `<link rel="stylesheet" href="${escapeHtml(urls.tryIt.styles)}">\n` : ''}</head>
<body>
${siteHeader(path)}
<noscript>This reference needs JavaScript. The OpenAPI document is at <a href="${escapeHtml(urls.spec)}">${escapeHtml(urls.spec)}</a>.</noscript>
<div id="redoc" data-spec-url="${escapeHtml(urls.spec)}"></div>
<script src="${escapeHtml(urls.redoc)}"></script>
<script src="${escapeHtml(urls.init)}"></script>
${urls.tryIt ? `<script src="${escapeHtml(urls.tryIt.script)}"></script>\n` : ''}</body>
</html>
`;
}

/**
 * Starts Redoc from a served file, since the CSP allows no inline script. It fetches the document itself and
 * hands Redoc the object, so that the try-it panel gets the same object with the `redoc-rendered` event
 * rather than downloading it again; before Redoc renders it, `redoc-spec` lets the panel replace what Redoc
 * is given (`detail.spec`). When Redoc has rendered, the root gets `data-rendered` (or `data-error`),
 * and the URL's fragment is scrolled to again: an anchor written into the document's descriptions, such as
 * `#deprecations`, exists only now, after the browser looked for it. It lands on the start of the section that
 * holds it, so that the section's heading shows too.
 */
export const INIT_SCRIPT = `'use strict';
(function () {
  var root = document.getElementById('redoc');
  var options = { expandResponses: '200,201', requiredPropsFirst: true, pathInMiddlePanel: true };
  fetch(root.getAttribute('data-spec-url'))
    .then(function (response) {
      if (!response.ok) throw new Error('The document answered ' + response.status);
      return response.json();
    })
    .then(function (spec) {
      // The page's own scripts may change what Redoc is given: the try-it panel shows the code samples itself.
      var shown = { spec: spec };
      root.dispatchEvent(new CustomEvent('redoc-spec', { detail: shown }));
      window.Redoc.init(shown.spec, options, root, function (error) {
        if (error) return failed(error);
        root.setAttribute('data-rendered', 'true');
        root.dispatchEvent(new CustomEvent('redoc-rendered', { detail: spec }));
        var target = fragmentTarget();
        if (target) (target.closest('[data-section-id]') || target).scrollIntoView();
      });
    })
    .catch(failed);

  function failed(error) {
    root.setAttribute('data-error', String(error.message || error));
  }

  function fragmentTarget() {
    try {
      return location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    } catch (malformed) {
      return null;
    }
  }
})();
`;

/**
 * The key page's Content-Security-Policy: as strict as the console's, since it is our own code only (no
 * Redoc, so no inline styles). uPlot sizes its elements through the CSSOM, which `style-src` does not govern.
 */
export const KEY_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The HTML of `/docs/key`: an empty root that the key page's script fills. */
export function keyPage(urls: { script: string; styles: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Your API key · Pet Store API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${escapeHtml(urls.styles)}">
<script src="${escapeHtml(urls.script)}" defer></script>
</head>
<body>
${siteHeader('/docs/key')}
<noscript>This page needs JavaScript. <code>GET /v1/key</code> and <code>GET /v1/key/usage</code> answer the same.</noscript>
<div id="app"></div>
</body>
</html>
`;
}

/**
 * The guides' Content-Security-Policy: pages of text, so no script at all, and nothing from elsewhere (the
 * `data:` image is the empty icon that keeps the browser from asking for `/favicon.ico`).
 */
export const GUIDES_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** What a guide page shows around its text. */
export interface GuidePageParts {
  /** The page's title, such as the guide's. */
  title: string;
  /** Where the page is served. */
  path: string;
  /** The page's text, as HTML. */
  main: string;
  /** The list of guides beside it, as HTML; none on the page that is that list. */
  contents?: string;
  /** The stylesheet's URL. */
  styles: string;
}

/**
 * The list of guides beside the text on a wide screen; on a narrow one (the stylesheet shows one of the two)
 * a disclosure above it, closed, so that the text comes first.
 */
const contentsOf = (contents: string) => `<nav class="contents guide-nav" aria-label="Guides">
${contents}
</nav>
<details class="contents-menu">
<summary>Guides</summary>
<nav class="guide-nav" aria-label="Guides">
${contents}
</nav>
</details>
`;

/** The HTML of a page of `/docs/guides`: the site's links, the guides' list, and the text. */
export function guidePage(parts: GuidePageParts): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(parts.title)} · Pet Store API guides</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${escapeHtml(parts.styles)}">
</head>
<body>
<a class="skip" href="#text">Skip to the text</a>
${siteHeader(parts.path)}
<div class="layout">
${parts.contents === undefined ? '' : contentsOf(parts.contents)}<main id="text">
${parts.main}
</main>
</div>
</body>
</html>
`;
}
