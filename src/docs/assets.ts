import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** A file served from memory, with a digest of its bytes to version its URL. */
export interface StaticAsset {
  body: Buffer;
  /** The first 16 hex digits of the SHA-256 of `body`. */
  digest: string;
}

// The bundle names a source map we do not serve; a browser's developer tools would ask for it and get a 404.
const SOURCE_MAP_COMMENT = /\n\/\/# sourceMappingURL=\S+\s*$/;
// Redoc's sidebar footer loads Redocly's logo from their CDN, and no option turns it off. The page may reach
// nothing but this server, so the logo becomes an empty inline image; the footer's link text stays.
const CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const EMPTY_IMAGE = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E";

/** An asset of the given bytes, or of the given text as UTF-8. */
export function staticAsset(content: string | Buffer): StaticAsset {
  const body = typeof content === 'string' ? Buffer.from(content) : content;
  return { body, digest: createHash('sha256').update(body).digest('hex').slice(0, 16) };
}

/** Read once per process: the installed package does not change while it runs. */
let redocBundle: StaticAsset | undefined;

/**
 * Redoc's standalone bundle from the installed `redoc` package, read once per process, made to ask for nothing outside
 * this server: the page must work in a browser that can reach nothing else.
 */
export function loadRedocBundle(): StaticAsset {
  if (redocBundle === undefined) {
    const file = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
    const bundle = readFileSync(file, 'utf8')
      .replace(SOURCE_MAP_COMMENT, '\n')
      .replaceAll(CDN_LOGO, EMPTY_IMAGE);
    redocBundle = staticAsset(bundle);
  }
  return redocBundle;
}
