import os from 'node:os';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../clock/index.js';
import { onAnswer, routeConfig, routeTemplate, type UnparsedAnswer } from '../http/index.js';
import { redactCredentials } from '../log/index.js';
import type { RequestLog } from './log.js';

/** The instance of every row this process writes: its host and process id, as an operator finds it. */
export const INSTANCE = `${os.hostname()}:${process.pid}`;

/** The longest `User-Agent` and path kept, in characters. */
const MAX_USER_AGENT = 256;
const MAX_PATH = 512;

/** The path of a request, without its query, credentials redacted, cut to {@link MAX_PATH}. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  return redactCredentials(path.length > MAX_PATH ? path.slice(0, MAX_PATH) : path);
}

function userAgentOf(request: FastifyRequest): string | null {
  const agent = request.headers['user-agent'];
  if (agent === undefined) return null;
  return redactCredentials(agent.length > MAX_USER_AGENT ? agent.slice(0, MAX_USER_AGENT) : agent);
}

/**
 * Keeps a row of every answer the app gives (docs/request-log.md), the API's and the admin API's and every
 * other path's, so that each `X-Request-Id` the service hands out can be found: what the access line says,
 * and the error's code and message, the rate limit left, replay and deprecation. No header but the
 * `User-Agent` is read, and no body: never a credential, a cookie or a created key. Registered on the root,
 * before any scope: the API's scopes set the key and the principal (`request.apiKey`, `request.admin`) that a
 * row names; elsewhere they are not set, and the row has none.
 */
export function registerRequestLog(app: FastifyInstance, deps: { log: RequestLog; clock: Clock }): void {
  const { log, clock } = deps;
  onAnswer(app, (request, reply, bytes, elapsedMs) => {
    const error = request.errorAnswer;
    log.record({
      at: clock.now(),
      requestId: request.id,
      // Undefined, not null, outside the scopes that identify a caller.
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
      remaining: request.rateLimit?.minute.remaining ?? null,
      replayed: reply.hasHeader('idempotent-replayed'),
      deprecated: routeConfig(request).deprecated === true,
      instance: INSTANCE,
      userAgent: userAgentOf(request),
    });
  });
}

/** A request line as HTTP/1.1 writes it: a method, a target and the version. */
const REQUEST_LINE = /^([A-Z]{1,16}) ([!-~]{1,8192}) HTTP\/\d\.\d$/;

/**
 * The method and path of a refused request, from its request line when the parser kept one that reads as
 * such: nothing else of the packet (its headers can hold the very key that was pasted with a line break).
 */
function requestLineOf(rawPacket: Buffer | undefined): { method: string; path: string } {
  if (rawPacket !== undefined) {
    const head = rawPacket.subarray(0, 8_300).toString('latin1');
    const end = head.search(/[\r\n]/);
    const match = REQUEST_LINE.exec(end === -1 ? head : head.slice(0, end));
    if (match !== null) return { method: match[1] as string, path: pathOf(match[2] as string) };
  }
  return { method: '-', path: '-' };
}

/** Keeps a row of an answer to a request that was not valid HTTP, so that its id can be found too. */
export function recordUnparsed(log: RequestLog, clock: Clock, answer: UnparsedAnswer): void {
  log.record({
    at: clock.now(),
    requestId: answer.requestId,
    keyId: null,
    actor: null,
    client: answer.client ?? null,
    ...requestLineOf(answer.rawPacket),
    route: null,
    status: answer.status,
    errorCode: answer.code,
    errorMessage: answer.message,
    durationMs: 0,
    bytes: answer.bytes,
    remaining: null,
    replayed: false,
    deprecated: false,
    instance: INSTANCE,
    userAgent: null,
  });
}
