import type { Clock } from '../clock/index.js';
import {
  type KeyInfo,
  type KeyUsageHistory,
  OPERATIONS,
  type OperationId,
  type UsageDay,
} from '../contract/index.js';
import { answeringRefusals } from '../errors/index.js';
import type { OperationHandlers } from '../http/index.js';
import {
  type Authenticator,
  KeyExpiredError,
  type KeyManager,
  KeyRevokedError,
  KeyRotatedError,
} from '../keys/index.js';
import { filterOf, ownView, type RequestLog, requestLogOff, sendPage } from '../request-log/index.js';
import { dayOf, type UsageRecorder, type UsageRepository, usageSeries } from '../usage/index.js';
import type { DeprecationPolicy } from '../versioning/index.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
type KeyRecordLike = { id: string };

/** A window as the rate-limit headers describe it: the reset in Unix seconds. */
const windowOf = (window: { limit: number; remaining: number; resetAt: number }) => ({
  limit: window.limit,
  remaining: window.remaining,
  reset: Math.ceil(window.resetAt / 1000),
});

/** The key manager's refusals of a change to the calling key, as the API answers them. */
const checked = answeringRefusals([
  [KeyRotatedError, 'key_rotated'],
  [KeyRevokedError, 'key_revoked'],
  [KeyExpiredError, 'key_expired'],
]);

/**
 * The calling key's own operations, which reach no other key: `GET /v1/key` (the key, its windows as the
 * rate limiter just looked at them, counting nothing, its last 7 days of use, stored plus what this instance
 * has not flushed yet, and its calls of deprecated operations with their sunset dates), `GET /v1/key/usage`
 * (by hour and by day), `GET /v1/key/requests` (its rows of the request log), and rotating or revoking it, audited as changes made by the key itself.
 */
export function createAccountHandlers(deps: {
  usage: UsageRepository;
  recorder: UsageRecorder;
  keys: KeyManager;
  authenticator: Authenticator;
  deprecation: DeprecationPolicy;
  /** The request log; undefined when it is off. */
  requestLog: RequestLog | undefined;
  clock: Clock;
}): Pick<OperationHandlers, 'getKey' | 'getKeyUsage' | 'listKeyRequests' | 'rotateKey' | 'revokeKey'> {
  const { usage, recorder, keys, authenticator, deprecation, requestLog, clock } = deps;
  /** The calling key: the stages before the handlers set it for every request that reaches one. */
  const callerOf = (request: { apiKey: KeyRecordLike | null }) => {
    if (request.apiKey === null) throw new Error('an operation of the calling key reached without a key');
    return request.apiKey;
  };
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
      const { stored, storedCalls, storedKey, pending } = await recorder.withPending(
        key.id,
        async (pending) => {
          // The key as stored, for its last use: the copy the authenticator holds is as of its last reload,
          // and shown once this instance's counts were flushed it went back in time.
          const [stored, storedCalls, storedKey] = await Promise.all([
            usage.daily(key.id, days[0] as string, days[6] as string),
            usage.deprecated(key.id),
            keys.get(key.id),
          ]);
          return { stored, storedCalls, storedKey, pending };
        },
      );
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
        storedKey?.lastUsedAt ?? key.lastUsedAt,
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
        replacedBy: key.replacedBy,
        deprecatedCalls: [...calls.values()].flatMap((row) => {
          const operation = operations.get(row.operationId as OperationId);
          return operation === undefined
            ? []
            : [{ ...row, method: operation.method, path: operation.path, sunsetAt: sunset }];
        }),
      };
      return reply.send(info);
    },
    async getKeyUsage(request, reply) {
      const key = callerOf(request);
      const to = clock.now();
      const [hours, days] = await recorder.withPending(key.id, (pending) =>
        Promise.all([
          usageSeries(usage, {
            key: key.id,
            granularity: 'hour',
            from: to - 47 * HOUR_MS,
            to,
            span: 48,
            pending: pending.hours,
          }),
          usageSeries(usage, {
            key: key.id,
            granularity: 'day',
            from: to - 29 * DAY_MS,
            to,
            span: 30,
            pending: pending.days,
          }),
        ]),
      );
      // Both ranges are fixed, forwards and within their spans.
      if (typeof hours === 'string' || typeof days === 'string')
        throw new Error(`usage series: ${hours} ${days}`);
      const history: KeyUsageHistory = { hours: hours.buckets, days: days.buckets };
      return reply.send(history);
    },
    async listKeyRequests(request, reply) {
      if (requestLog === undefined) throw requestLogOff();
      const query = request.query;
      return sendPage(request, reply, requestLog, filterOf(query, callerOf(request).id), query, ownView);
    },
    async rotateKey(request, reply) {
      const key = callerOf(request);
      const graceSeconds = request.body?.gracePeriodSeconds ?? 0;
      const rotated = await checked(() => keys.rotate(key.id, graceSeconds * 1000, key.id));
      if (rotated === undefined) throw new Error(`the calling key ${key.id} is not stored`);
      // This instance knows the successor, and the old key's new end and successor, from the next request.
      await authenticator.refresh();
      const { record } = rotated;
      return reply.code(201).send({
        id: record.id,
        key: rotated.key,
        name: record.name,
        plan: record.plan,
        scopes: [...record.scopes],
        createdAt: record.createdAt,
        expiresAt: record.expiresAt,
        replaces: key.id,
        // The grace end, or the key's own expiry when that comes first.
        replacedKeyExpiresAt: rotated.previous.expiresAt as string,
      });
    },
    async revokeKey(request, reply) {
      const key = callerOf(request);
      const revoked = await keys.revoke(key.id, key.id);
      if (revoked === undefined) throw new Error(`the calling key ${key.id} is not stored`);
      // This instance refuses them from the next request; the others within their refresh.
      await authenticator.refresh();
      return reply.send({
        id: revoked.record.id,
        revokedAt: revoked.record.revokedAt,
        successorsRevoked: revoked.successors.map((successor) => successor.id),
      });
    },
  };
}
