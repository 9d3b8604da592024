import os from 'node:os';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../clock/index.js';
import { onAnswer, routeConfig, routeTemplate } from '../http/index.js';
import { redactCredentials } from '../log/index.js';
import type { RequestLog } from './log.js';

/** The instance of every row this process writes: its host and process id, as an operator finds it. */
export const INSTANCE = `${os.hostname()}:${process.pid}`;

/** The longest `User-Agent` and path kept, in characters. */
const MAX_USER_AGENT = 256;
const MAX_PATH = 512;

/**
 * `text` with its credentials redacted. Only a text that can hold one pays for the regular expression: every
 * credential's prefix has a `_`, or its percent-encoding `%5F`.
 */
const redacted = (text: string) =>
  text.includes('_') || text.includes('%') ? redactCredentials(text) : text;

/** The path of a request, without its query, credentials redacted, cut to {@link MAX_PATH}. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  return redacted(path.length > MAX_PATH ? path.slice(0, MAX_PATH) : path);
}

function userAgentOf(request: FastifyRequest): string | null {
  const agent = request.headers['user-agent'];
  if (agent === undefined) return null;
  return redacted(agent.length > MAX_USER_AGENT ? agent.slice(0, MAX_USER_AGENT) : agent);
}

/**
 * Keeps a row of every answer of the scope in the request log (docs/request-log.md): what the access line
 * says, and the error's code and message, the rate limit left, replay and deprecation. No header but the
 * `User-Agent` is read, and no body: never a credential, a cookie or a created key.
 */
export function registerRequestLog(app: FastifyInstance, deps: { log: RequestLog; clock: Clock }): void {
  const { log, clock } = deps;
  onAnswer(app, (request, reply, bytes, elapsedMs) => {
    const error = request.errorAnswer;
    const decision = request.rateLimit;
    log.record({
      at: clock.now(),
      requestId: request.id,
      keyId: request.apiKey?.id ?? request.expiredKey?.id ?? null,
      actor: request.admin?.id ?? null,
      // No address once the client has gone (Node forgets a closed socket's peer), though the types say string.
      client: (request.ip as string | undefined) ?? null,
      method: request.method,
      route: routeTemplate(request) ?? null,
      path: pathOf(request.url),
      status: reply.statusCode,
      errorCode: error?.code ?? null,
      errorMessage: error === null ? null : redactCredentials(error.message),
      durationMs: Math.round(elapsedMs * 1000) / 1000,
      bytes: request.method === 'HEAD' ? 0 : bytes,
      remaining: decision === null ? null : decision.minute.remaining,
      replayed: reply.hasHeader('idempotent-replayed'),
      deprecated: routeConfig(request).deprecated === true,
      instance: INSTANCE,
      userAgent: userAgentOf(request),
    });
  });
}
