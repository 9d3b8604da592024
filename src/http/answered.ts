import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Told of each answer of a scope as it is sent: its status (on `reply`), the bytes of its body, and the
 * milliseconds since the request arrived, read once for all the listeners of a prepared answer.
 */
export type AnswerListener = (
  request: FastifyRequest,
  reply: FastifyReply,
  bytes: number,
  elapsedMs: number,
) => void;

/** The listeners of a scope and of the scopes around it, outermost first: read through the prototype chain. */
const LISTENERS = Symbol('answerListeners');
type WithListeners = FastifyInstance & { [LISTENERS]?: readonly AnswerListener[] };

/** The size of a body as `onSend` holds it. */
function sizeOf(payload: unknown, reply: FastifyReply): number {
  if (typeof payload === 'string') return Buffer.byteLength(payload);
  if (payload instanceof Uint8Array) return payload.byteLength;
  // A stream, or nothing: what the answer says it sends.
  return Number(reply.getHeader('content-length') ?? 0);
}

/**
 * Tells `listener` of every answer of the scope and its children, 4xx and 5xx included. An `onSend` hook
 * and not `onResponse`: any `onResponse` hook makes Fastify listen for each response's `finish`, `error`
 * and `close`, which costs about 1 us a request (5% of the list's throughput). The answers `sendPrepared`
 * writes past `onSend` are told to the listeners there (`tellPrepared`). An answer whose write then fails
 * still counts: it was given.
 */
export function onAnswer(app: FastifyInstance, listener: AnswerListener): void {
  const scope = app as WithListeners;
  // An own property of this scope's instance: its parent's list stays as it was.
  scope[LISTENERS] = [...(scope[LISTENERS] ?? []), listener];
  app.addHook('onSend', (request, reply, payload, done) => {
    listener(request, reply, sizeOf(payload, reply), performance.now() - request.receivedAt);
    done(null, payload);
  });
}

/** Tells the listeners of the request's scope of an answer written past the `onSend` hooks. */
export function tellPrepared(request: FastifyRequest, reply: FastifyReply, bytes: number): void {
  const listeners = (request.server as WithListeners)[LISTENERS];
  if (listeners === undefined) return;
  const elapsedMs = performance.now() - request.receivedAt;
  for (const listener of listeners) listener(request, reply, bytes, elapsedMs);
}
