import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock/index.js';
import { onAnswer } from '../http/index.js';
import type { UsageRecorder } from './recorder.js';

/**
 * Counts every answer of the scope against the key that asked, valid or expired, by its status, as it is
 * sent. Requests without a key of ours belong to no key.
 */
export function registerUsage(app: FastifyInstance, deps: { recorder: UsageRecorder; clock: Clock }): void {
  const { recorder, clock } = deps;
  onAnswer(app, (request, reply) => {
    const key = request.apiKey ?? request.expiredKey;
    if (key !== null) recorder.record(key.id, reply.statusCode, clock.now());
  });
}
