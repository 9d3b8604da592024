import http from 'node:http';
import https from 'node:https';
import { checkLiteral, guardedLookup, type TargetPolicy, TargetRefused } from './target.js';

/** How long an attempt may take, connecting and answering both, before it counts as failed. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/** The first bytes of a receiver's answer that are kept for the delivery log. */
export const EXCERPT_BYTES = 1_024;

/** Connections kept open to one receiver, for the next attempts. */
const SOCKETS_PER_HOST = 16;

/** The most bytes an encoded secret of a URL can take: a URL is at most 2,048 characters, 6 bytes each escaped. */
const MOST_SECRET = 2_048 * 6;

/** Past this many bytes of an answer the connection is dropped: a receiver cannot make us read a gigabyte. */
const MOST_READ = 64 * 1_024;

/**
 * What one attempt came to: `delivered` on any 2xx, `gone` on 410 (the endpoint is disabled), `failed` on
 * anything else, a redirect included (redirects are never followed: the endpoint's URL is the one checked).
 */
export interface AttemptResult {
  outcome: 'delivered' | 'gone' | 'failed';
  /** The receiver's status code; undefined when no answer came (refused, timed out, connection failed). */
  status: number | undefined;
  latencyMs: number;
  /** The answer's first {@link EXCERPT_BYTES} bytes, as UTF-8. */
  excerpt: string;
  /** Why no answer came, or why it was cut: a sentence for the delivery log. */
  error: string | undefined;
}

export interface SenderOptions {
  policy: TargetPolicy;
  /** {@link ATTEMPT_TIMEOUT_MS} unless a test shortens it. */
  timeoutMs?: number;
}

/** Sends attempts; its connections stay open for the next ones until `close`. */
export interface Sender {
  /**
   * POSTs `body` to `url` once, with `headers` (the signature's and the content type), and says how it went.
   * Never rejects: every failure is an outcome of its own, for the delivery log.
   */
  send(url: URL, headers: Record<string, string>, body: string): Promise<AttemptResult>;
  close(): void;
}

/**
 * The secrets of a URL as an answer could echo them back: its password, and its `Authorization: Basic`
 * value. The excerpt is shown in the delivery log, where they must never appear.
 */
function secretsOf(url: URL): string[] {
  if (url.username === '' && url.password === '') return [];
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  return [Buffer.from(`${user}:${password}`).toString('base64'), password].filter((text) => text !== '');
}

/**
 * Every form in which a receiver may echo `secret`: as it is, JSON-escaped (with `/` escaped too, as PHP
 * does), percent-encoded (a path's or a form's, space as `+`), and HTML-escaped. Longest first, so a form
 * that holds another is redacted whole.
 */
function encodingsOf(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const forms = [
    secret,
    json,
    json.replaceAll('/', '\\/'),
    encodeURIComponent(secret),
    encodeURIComponent(secret).replaceAll('%20', '+'),
    secret.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`),
    secret.replace(
      /[&<>"]/g,
      (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[character] ?? character,
    ),
  ];
  return [...new Set(forms)].sort((a, b) => b.length - a.length);
}

/** What stands in an excerpt for a secret. */
const MARK = '[redacted]';

/**
 * The first {@link EXCERPT_BYTES} of an answer with every form of the URL's secrets redacted. Redacted before
 * it is cut, from bytes read past the cut by the longest form, so that a cut cannot split a secret into a
 * part no pattern finds; a secret that the cut splits is redacted whole, and the excerpt ends at its mark.
 */
export function excerptOf(body: Buffer, url: URL): string {
  const forms = secretsOf(url).flatMap(encodingsOf);
  const longest = Math.max(0, ...forms.map((form) => Buffer.byteLength(form)));
  let text = body.subarray(0, EXCERPT_BYTES + longest).toString('utf8');
  for (const form of forms) text = text.replaceAll(form, MARK);
  const cut = Buffer.from(text).subarray(0, EXCERPT_BYTES).toString('utf8');
  // A cut through a mark shows the mark whole (it is ASCII: the cut is the text's exact prefix there).
  for (let at = text.indexOf(MARK); at !== -1 && at < cut.length; at = text.indexOf(MARK, at + 1)) {
    if (at + MARK.length > cut.length) return text.slice(0, at + MARK.length);
  }
  return cut;
}

const outcomeOf = (status: number): AttemptResult['outcome'] =>
  status >= 200 && status < 300 ? 'delivered' : status === 410 ? 'gone' : 'failed';

/**
 * A sender whose every connection is checked by the policy as it is opened (target.ts's `guardedLookup`, and
 * `checkLiteral` for an IP literal, which Node connects to without a lookup). A connection kept open goes on
 * to the address that was checked, so keeping it is safe against a name that resolves elsewhere later.
 */
export function createSender(options: SenderOptions): Sender {
  const { policy } = options;
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const lookup = guardedLookup(policy);
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: SOCKETS_PER_HOST }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: SOCKETS_PER_HOST }),
  };
  return {
    send: (url, headers, body) => sendOnce(url, headers, body),
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };

  function sendOnce(url: URL, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
    const failed = (error: string): AttemptResult => ({
      outcome: 'failed',
      status: undefined,
      latencyMs: elapsed(),
      excerpt: '',
      error,
    });
    try {
      checkLiteral(url, policy);
    } catch (error) {
      return Promise.resolve(failed((error as Error).message));
    }
    return new Promise((resolve) => {
      let settled = false;
      const settle = (result: AttemptResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const secure = url.protocol === 'https:';
      const request = (secure ? https.request : http.request)(url, {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup,
        agent: secure ? agents['https:'] : agents['http:'],
      });
      const timer = setTimeout(() => {
        request.destroy();
        settle(failed(`no answer within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      request.on('error', (error: NodeJS.ErrnoException) => {
        const reason =
          error instanceof TargetRefused ? error.message : `could not send: ${error.code ?? error.message}`;
        settle(failed(reason));
      });
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let read = 0;
        const done = (error: string | undefined) =>
          settle({
            outcome: outcomeOf(status),
            status,
            latencyMs: elapsed(),
            excerpt: excerptOf(Buffer.concat(chunks), url),
            error,
          });
        response.on('data', (chunk: Buffer) => {
          // Past the excerpt by as much as a secret's longest form, so that it is redacted before the cut.
          if (read < EXCERPT_BYTES + MOST_SECRET) chunks.push(chunk);
          read += chunk.length;
          if (read > MOST_READ) {
            response.destroy();
            done(`the answer was cut after ${MOST_READ} bytes`);
          }
        });
        response.on('end', () => done(undefined));
        response.on('error', () => done('the answer was cut off'));
      });
      request.end(body);
    });
  }
}
