import { hash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock/index.js';
import { successAnswers } from '../contract/index.js';
import { ApiError } from '../errors/index.js';
import { JSON_CONTENT_TYPE, routeConfig } from '../http/index.js';
import {
  type CreateOperation,
  type Creates,
  IdempotencyConflict,
  type KeptAnswer,
  type Storage,
} from '../storage/index.js';
import { type EventType, type PendingEvent, storedEventOfJson } from '../webhooks/index.js';

/** How long an answer is replayed (DESIGN.md section 3); older ones are purged. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** The webhook event each create tells of; its `data` is the create's answer body. */
const CREATE_EVENTS = {
  createCategory: 'category.created',
  createPet: 'pet.created',
  placeOrder: 'order.placed',
} as const satisfies Record<CreateOperation, EventType>;

/** The answer of a create, as it is sent: made now, or replayed from the first request with its key. */
export interface CreateAnswer {
  status: number;
  body: string;
  replayed: boolean;
}

/** A create's outcome: its answer, or the reason it created nothing (for the operation to word). */
export type CreateOutcome<O extends CreateOperation> = [Creates[O]['refusal']] extends [never]
  ? { ok: true; answer: CreateAnswer }
  : { ok: true; answer: CreateAnswer } | { ok: false; refusal: Creates[O]['refusal'] };

/** The one path of every create: the storage's unit of work, at most once per `Idempotency-Key`. */
export interface IdempotentCreates {
  /**
   * Runs the create and makes its answer: the contract's status, and the body its serializer makes of what
   * was created. Under an `Idempotency-Key` the answer is stored with the created row, and a request with the
   * same key gets it replayed (same request), 422 (another request) or 409 while the first is still in
   * progress. A refusal created nothing, so nothing is stored and a retry runs again.
   */
  run<O extends CreateOperation>(
    request: FastifyRequest,
    operation: O,
    input: Creates[O]['input'],
  ): Promise<CreateOutcome<O>>;
}

/** Sends a create's answer; a replay says so in `Idempotent-Replayed`. */
export function sendAnswer(reply: FastifyReply, answer: CreateAnswer): FastifyReply {
  if (answer.replayed) reply.header('idempotent-replayed', 'true');
  return reply.code(answer.status).type(JSON_CONTENT_TYPE).send(answer.body);
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
  const text = `${request.method} ${routeConfig(request).url}\n${canonicalJson(request.body)}`;
  return hash('sha256', text, 'base64url');
}

const inUse = () =>
  new ApiError(
    'idempotency_key_in_use',
    'A request with this Idempotency-Key is still in progress; retry after 1 s',
    { 'retry-after': '1' },
  );

export function createIdempotentCreates(deps: {
  storage: Storage;
  clock: Clock;
  /** Called once a create that kept a webhook event has committed: the dispatcher sends it now. */
  published?: () => void;
}): IdempotentCreates {
  const { storage, clock, published } = deps;
  // Keys being created under in this process. Across instances the storage's own lock answers in_use.
  const inFlight = new Set<string>();
  // Compiled now, as the app is built, not by the first create.
  const answers = successAnswers();

  /**
   * One unit of work in the storage: the row, the answer kept under the key, and the webhook event, whose
   * `data` is the answer body. The body is made once for all three (again only if the storage runs the unit
   * again, on a new row).
   */
  async function createOnce<O extends CreateOperation>(
    operation: O,
    input: Creates[O]['input'],
    keep?: Omit<KeptAnswer<Creates[O]['created']>, 'status' | 'body'>,
  ): Promise<CreateOutcome<O>> {
    const { status, serialize } = answers[operation];
    let made: { created: Creates[O]['created']; body: string } | undefined;
    const bodyOf = (created: Creates[O]['created']) => {
      if (made?.created !== created) made = { created, body: serialize(created) };
      return made.body;
    };
    const type = CREATE_EVENTS[operation];
    let queued = false;
    const event: PendingEvent<Creates[O]['created']> = {
      type,
      make(created) {
        queued = false;
        return storedEventOfJson(type, bodyOf(created), clock.now());
      },
      queued() {
        queued = true;
      },
    };
    const result = await storage.create(
      operation,
      input,
      keep === undefined ? undefined : { ...keep, status, body: bodyOf },
      event,
    );
    if (queued) published?.();
    return (
      result.ok ? { ok: true, answer: { status, body: bodyOf(result.created), replayed: false } } : result
    ) as CreateOutcome<O>;
  }

  return {
    async run<O extends CreateOperation>(
      request: FastifyRequest,
      operation: O,
      input: Creates[O]['input'],
    ): Promise<CreateOutcome<O>> {
      const key = request.idempotencyKey;
      if (key === null || request.apiKey === null) return createOnce(operation, input);
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
          const stored = await storage.idempotency.find(apiKeyId, key, expiredBefore);
          if (stored !== undefined) {
            if (stored.requestDigest !== digest) {
              throw new ApiError(
                'idempotency_key_reused',
                'This Idempotency-Key was used with a different request; use a new key for a new request',
              );
            }
            return {
              ok: true,
              answer: { status: stored.status, body: stored.body, replayed: true },
            } as CreateOutcome<O>;
          }
          // The contract's serializer makes the stored body and the one sent now: every replay is the first
          // answer, byte for byte.
          const keep = { apiKeyId, key, requestDigest: digest, createdAt: now, expiredBefore };
          try {
            return await createOnce(operation, input, keep);
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
