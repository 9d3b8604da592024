import type { Clock } from '../clock/index.js';
import { type KeyInfo, OPERATIONS, type OperationId, type UsageDay } from '../contract/index.js';
import type { OperationHandlers } from '../http/index.js';
import { dayOf, type UsageRecorder, type UsageRepository } from '../usage/index.js';
import type { DeprecationPolicy } from '../versioning/index.js';

const DAY_MS = 86_400_000;

/** A window as the rate-limit headers describe it: the reset in Unix seconds. */
const windowOf = (window: { limit: number; remaining: number; resetAt: number }) => ({
  limit: window.limit,
  remaining: window.remaining,
  reset: Math.ceil(window.resetAt / 1000),
});

/**
 * `GET /v1/key`: the calling key, its windows (as the rate limiter just looked at them, counting nothing),
 * its last 7 days of use (stored, plus what this instance has not flushed yet) and its calls of deprecated
 * operations with their sunset dates.
 */
export function createAccountHandlers(deps: {
  usage: UsageRepository;
  recorder: UsageRecorder;
  deprecation: DeprecationPolicy;
  clock: Clock;
}): Pick<OperationHandlers, 'getKey'> {
  const { usage, recorder, deprecation, clock } = deps;
  const operations = new Map<string, { method: string; path: string }>(
    OPERATIONS.map((operation) => [operation.operationId, operation]),
  );
  const sunset = deprecation.sunsetAt.toISOString().slice(0, 10);

  return {
    async getKey(request, reply) {
      const key = request.apiKey;
      const decision = request.rateLimit;
      // Both are set by the stages before this one for every request that gets here.
      if (key === null || decision === null) throw new Error('GET /v1/key reached without a key');
      const now = clock.now();
      const days = Array.from({ length: 7 }, (_day, index) => dayOf(now - (6 - index) * DAY_MS));
      const [stored, storedCalls] = await Promise.all([
        usage.daily(key.id, days[0] as string, days[6] as string),
        usage.deprecated(key.id),
      ]);
      const pending = recorder.pending(key.id);
      const usageDays: UsageDay[] = days.map((day) => {
        const counts = { success: 0, clientErrors: 0, rateLimited: 0, serverErrors: 0 };
        for (const add of [stored.find((row) => row.day === day), pending.days.get(day)]) {
          if (add === undefined) continue;
          counts.success += add.success;
          counts.clientErrors += add.clientErrors;
          counts.rateLimited += add.rateLimited;
          counts.serverErrors += add.serverErrors;
        }
        return { day, ...counts };
      });
      const calls = new Map(storedCalls.map((row) => [row.operationId, { ...row }]));
      for (const add of pending.deprecated) {
        const into = calls.get(add.operationId);
        if (into === undefined)
          calls.set(add.operationId, {
            operationId: add.operationId,
            calls: add.calls,
            lastCalledAt: add.lastCalledAt,
          });
        else {
          into.calls += add.calls;
          if (add.lastCalledAt > into.lastCalledAt) into.lastCalledAt = add.lastCalledAt;
        }
      }
      const lastUsed = [
        key.lastUsedAt,
        pending.lastUsed === undefined ? null : new Date(pending.lastUsed).toISOString(),
      ]
        .filter((at): at is string => at !== null)
        .sort()
        .at(-1);
      const bannedUntil = key.bannedUntil;
      const info: KeyInfo = {
        id: key.id,
        name: key.name,
        plan: key.plan,
        scopes: [...key.scopes],
        createdAt: key.createdAt,
        expiresAt: key.expiresAt,
        limits: { minute: windowOf(decision.minute), day: windowOf(decision.day) },
        ban: { banned: bannedUntil !== null && Date.parse(bannedUntil) > now, until: bannedUntil },
        usage: usageDays,
        lastUsedAt: lastUsed ?? null,
        deprecatedCalls: [...calls.values()].flatMap((row) => {
          const operation = operations.get(row.operationId as OperationId);
          return operation === undefined
            ? []
            : [{ ...row, method: operation.method, path: operation.path, sunsetAt: sunset }];
        }),
      };
      return reply.send(info);
    },
  };
}
