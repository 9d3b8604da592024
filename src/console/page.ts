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

/** How people sign in, for the sign-in page to offer: a provider's button first, the token form unless off. */
export interface SignInOptions {
  /** The OpenID Connect provider's name, for "Sign in with <name>"; null when none is set. */
  provider: string | null;
  /** Whether the token form is offered (`CONSOLE_TOKEN_SIGNIN`). */
  token: boolean;
}

/**
 * The one HTML page of the console, for every path below `/console`: the script reads the path and draws
 * the page it names. The service's version and the ways to sign in are on the root element for it to read.
 */
export function consolePage(version: string, urls: ConsoleUrls, signIn: SignInOptions): string {
  const provider = signIn.provider === null ? '' : ` data-oidc-provider="${escapeHtml(signIn.provider)}"`;
  return `<!doctype html>
<html lang="en" data-version="${escapeHtml(version)}" data-token-signin="${signIn.token ? 'on' : 'off'}"${provider}>
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

/** A page the server draws itself, outside the console's script: the end of a sign-in with a provider. */
export interface MessagePage {
  title: string;
  /** Paragraphs, as text. */
  paragraphs: readonly string[];
  /** Where the page sends the browser at once (a meta refresh, no script), as a path of this origin. */
  redirect?: string;
}

/** A message page in the console's own styles: a heading, its paragraphs, and a way back to sign-in. */
export function messagePage(urls: ConsoleUrls, message: MessagePage): string {
  const refresh =
    message.redirect === undefined
      ? ''
      : `\n<meta http-equiv="refresh" content="0; url=${escapeHtml(message.redirect)}">`;
  const link =
    message.redirect === undefined
      ? '<p><a href="/console">Back to sign-in</a></p>'
      : `<p><a href="${escapeHtml(message.redirect)}">Open the console</a></p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">${refresh}
<title>${escapeHtml(message.title)} · Pet Store console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${escapeHtml(urls.styles)}">
</head>
<body>
<main class="sign-in" id="main">
<div class="panel">
<h1>${escapeHtml(message.title)}</h1>
${message.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join('\n')}
${link}
</div>
</main>
</body>
</html>
`;
}
