/**
 * The console's Content-Security-Policy: nothing but this server, no inline script or style. uPlot sizes its
 * elements through the CSSOM (`element.style.width = ...`), which `style-src` does not govern; the icon is
 * a `data:` URL so the browser asks for no `/favicon.ico`.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Where the page finds its script and styles, each URL versioned by a digest of the bytes. */
export interface ConsoleUrls {
  script: string;
  styles: string;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/**
 * The one HTML page of the console, for every path below `/console`: the script reads the path and draws
 * the page it names. The service's version is on the root element for the footer to show.
 */
export function consolePage(version: string, urls: ConsoleUrls): string {
  return `<!doctype html>
<html lang="en" data-version="${escapeHtml(version)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pet Store console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${escapeHtml(urls.styles)}">
<script src="${escapeHtml(urls.script)}" defer></script>
</head>
<body>
<noscript>The console needs JavaScript. Everything it does, the admin API does too: see /docs/admin.</noscript>
<div id="app"></div>
</body>
</html>
`;
}
