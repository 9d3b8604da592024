import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { staticAsset } from '../docs/index.js';
import { notFound, transportSecurity } from '../http/index.js';
import { CONSOLE_CSP, consolePage, type MessagePage, messagePage, type SignInOptions } from './page.js';

/** Where the console is served; the admin API it calls is at `/admin/v1`. */
export const CONSOLE_PATH = '/console';

// The page links each asset with a digest of its bytes in the URL, so a cached copy can never be stale.
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The two files of the built console, by the part of the page that links them. */
const ASSETS = {
  script: { name: 'app.js', type: 'text/javascript; charset=utf-8' },
  styles: { name: 'app.css', type: 'text/css; charset=utf-8' },
} as const;

/**
 * A file of the built console, read once: it does not change while we run. `npm run build` puts it in
 * dist/console/, beside dist/src/ where this module runs, in a checkout and in the installed package alike.
 */
function readAsset(name: string) {
  const file = fileURLToPath(new URL(`../../console/${name}`, import.meta.url));
  if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build`);
  return staticAsset(readFileSync(file, 'utf8'));
}

/**
 * Serves the console, no credential needed (it signs in through the admin API): one HTML page for
 * `/console` and every path below it that is not an asset, so each page's URL can be linked and reloaded,
 * under a strict Content-Security-Policy and never in a frame; its script and styles at
 * `/console/assets/`, from dist/console.
 */
export function registerConsole(
  app: FastifyInstance,
  options: { version: string; signIn: SignInOptions },
): ConsolePages {
  const script = { ...ASSETS.script, ...readAsset(ASSETS.script.name) };
  const styles = { ...ASSETS.styles, ...readAsset(ASSETS.styles.name) };
  const url = (asset: typeof script | typeof styles) =>
    `${CONSOLE_PATH}/assets/${asset.name}?v=${asset.digest}`;
  const urls = { script: url(script), styles: url(styles) };
  const page = consolePage(options.version, urls, options.signIn);

  const sendHtml = (request: FastifyRequest, reply: FastifyReply, html: string, cache: string) =>
    reply
      .headers({
        'content-security-policy': CONSOLE_CSP,
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
        'cache-control': cache,
        ...transportSecurity(request),
      })
      .type('text/html; charset=utf-8')
      .send(html);
  const sendPage = async (request: FastifyRequest, reply: FastifyReply) =>
    sendHtml(request, reply, page, 'no-cache');
  app.get(CONSOLE_PATH, sendPage);
  app.get(`${CONSOLE_PATH}/*`, sendPage);

  for (const asset of [script, styles])
    app.get<{ Querystring: { v?: unknown } }>(
      `${CONSOLE_PATH}/assets/${asset.name}`,
      async (request, reply) =>
        reply
          // Only the versioned URL is forever: the bare path names whichever bytes are installed now.
          .header('cache-control', request.query.v === asset.digest ? IMMUTABLE : 'no-cache')
          .type(asset.type)
          .send(asset.body),
    );
  // A missing asset is a 404, not the page: a script tag given HTML would fail in a confusing way.
  app.get(`${CONSOLE_PATH}/assets/*`, notFound);
  return {
    sendMessage: (request, reply, message) =>
      sendHtml(request, reply, messagePage(urls, message), 'no-store'),
  };
}

/** The console's pages for other capabilities to answer with: a message in its styles, never cached. */
export interface ConsolePages {
  sendMessage(request: FastifyRequest, reply: FastifyReply, message: MessagePage): FastifyReply;
}
