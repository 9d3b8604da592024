import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { answerClientGone, sendError } from '../http/index.js';
import { rateLimitHeaders, retryAfterSeconds } from './headers.js';
import type { Decision } from './store.js';

function apply(request: FastifyRequest, reply: FastifyReply, decision: Decision): boolean {
  reply.headers(rateLimitHeaders(decision));
  const retryAfter = retryAfterSeconds(decision);
  if (retryAfter === undefined) return true;
  const headers = { 'retry-after': String(retryAfter) };
  if (decision.kind === 'banned') {
    sendError(
      request,
      reply,
      'api_key_banned',
      `This API key is banned for ${retryAfter} s for sending requests after 429 answers`,
      headers,
    );
  } else {
    sendError(
      request,
      reply,
      'rate_limit_exceeded',
      `Rate limit exceeded (${decision.minute.limit} per minute, ${decision.day.limit} per day); retry after ${retryAfter} s`,
      headers,
    );
  }
  return false;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The rate limiter's decision on the request, once made: its windows, for an answer that shows them. */
    rateLimit: Decision | null;
  }
}

/**
 * Decides every request of the scope with `decide` (which counts it, or only looks), and puts the
 * rate-limit headers on its answer, whatever the answer turns out to be; refuses it with 429 when a window
 * is exhausted or the caller is banned. Register after the caller is identified and before anything that
 * can answer.
 */
export function registerRateLimit(
  app: FastifyInstance,
  decide: (request: FastifyRequest) => Decision | Promise<Decision>,
  /** Told of each decision, for the metrics. */
  observe: (request: FastifyRequest, decision: Decision) => void = () => {},
): void {
  app.decorateRequest('rateLimit', null);
  // A callback hook: with the in-memory store the decision is synchronous and costs no promise.
  app.addHook('onRequest', (request, reply, done) => {
    const decision = decide(request);
    if (decision instanceof Promise) {
      decision.then(
        (settled) => {
          request.rateLimit = settled;
          observe(request, settled);
          // The client may have left while the store decided: its body will never come.
          if (request.raw.readableAborted) answerClientGone(request, reply);
          else if (apply(request, reply, settled)) done();
        },
        (error: unknown) => done(error as Error),
      );
    } else {
      request.rateLimit = decision;
      observe(request, decision);
      if (apply(request, reply, decision)) done();
    }
  });
}
