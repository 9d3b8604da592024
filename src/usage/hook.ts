import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock/index.js';
import type { UsageRecorder } from './recorder.js';

/**
 * Counts every answered request of the scope against the key that made it, valid or expired, by its status,
 * once the answer is sent. Requests without a key of ours belong to no key.
 */
export function registerUsage(app: FastifyInstance, deps: { recorder: UsageRecorder; clock: Clock }): void {
  const { recorder, clock } = deps;
  app.addHook('onResponse', (request, reply, done) => {
    const key = request.apiKey ?? request.expiredKey;
    if (key !== null) recorder.record(key.id, reply.statusCode, clock.now());
    done();
  });
}
