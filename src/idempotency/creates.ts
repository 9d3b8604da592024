import { hash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock/index.js';
import { ApiError } from '../errors/index.js';
import { JSON_CONTENT_TYPE } from '../http/index.js';
import {
  IdempotencyConflict,
  type IdempotencyRecord,
  type IdempotencyRepository,
  type IdempotentWrite,
} from '../storage/index.js';

/** How long an answer is replayed (DESIGN.md section 3); older ones are purged. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Answers creates: 201 with the created entity, at most once per `Idempotency-Key`. */
export interface IdempotentCreates {
  /**
   * Runs `create` and answers 201 with what it created. Under an `Idempotency-Key`, the answer is stored with
   * the created row (the repository takes `write`), and a request with the same key gets it replayed (same
   * request), 422 (another request) or 409 while the first is still in progress. An error from `create`
   * created nothing, so nothing is stored and a retry runs again.
   */
  answer<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    create: (write: IdempotentWrite<T> | undefined) => Promise<T>,
  ): Promise<FastifyReply>;
}

/** JSON with the keys of every object sorted: `{"a":1,"b":2}` and `{"b":2,"a":1}` are one request. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, nested: unknown) =>
    nested !== null && typeof nested === 'object' && !Array.isArray(nested)
      ? Object.fromEntries(Object.entries(nested).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : nested,
  );
}

/** What tells a retry from a reuse of its key: the operation and the parsed body, whatever its key order. */
function requestDigest(request: FastifyRequest): string {
  const text = `${request.method} ${request.routeOptions.url}\n${canonicalJson(request.body)}`;
  return hash('sha256', text, 'base64url');
}

const inUse = () =>
  new ApiError(
    'idempotency_key_in_use',
    'A request with this Idempotency-Key is still in progress; retry after 1 s',
    { 'retry-after': '1' },
  );

function replay(reply: FastifyReply, stored: IdempotencyRecord, digest: string): FastifyReply {
  if (stored.requestDigest !== digest) {
    throw new ApiError(
      'idempotency_key_reused',
      'This Idempotency-Key was used with a different request; use a new key for a new request',
    );
  }
  return reply
    .code(stored.status)
    .type(JSON_CONTENT_TYPE)
    .header('idempotent-replayed', 'true')
    .send(stored.body);
}

export function createIdempotentCreates(deps: {
  idempotency: IdempotencyRepository;
  clock: Clock;
}): IdempotentCreates {
  const { idempotency, clock } = deps;
  // Keys being created under in this process. Across instances the storage's own lock answers in_use.
  const inFlight = new Set<string>();

  return {
    async answer(request, reply, create) {
      const key = request.idempotencyKey;
      if (key === null || request.apiKey === null) return reply.code(201).send(await create(undefined));
      const apiKeyId = request.apiKey.id;
      const slot = `${apiKeyId}\n${key}`;
      if (inFlight.has(slot)) throw inUse();
      inFlight.add(slot);
      try {
        const digest = requestDigest(request);
        // A second pass only when another instance stored an answer between our lookup and our commit.
        for (let pass = 1; pass <= 2; pass += 1) {
          const now = clock.now();
          const expiredBefore = now - IDEMPOTENCY_TTL_MS;
          const stored = await idempotency.find(apiKeyId, key, expiredBefore);
          if (stored !== undefined) return replay(reply, stored, digest);
          let body: string | undefined;
          reply.code(201);
          try {
            const created = await create({
              apiKeyId,
              key,
              requestDigest: digest,
              createdAt: now,
              expiredBefore,
              answer(entity) {
                // Serialized here, in the transaction, so the first answer and every replay are the same bytes.
                body = reply.serialize(entity) as string;
                return { status: 201, body };
              },
            });
            return body === undefined ? reply.send(created) : reply.type(JSON_CONTENT_TYPE).send(body);
          } catch (error) {
            if (!(error instanceof IdempotencyConflict)) throw error;
            if (error.reason === 'in_use') throw inUse();
          }
        }
        throw inUse();
      } finally {
        inFlight.delete(slot);
      }
    },
  };
}
