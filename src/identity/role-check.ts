import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditRepository } from '../audit/index.js';
import type { Clock } from '../clock/index.js';
import { type Role, roleAllows } from '../contract/index.js';
import { ApiError } from '../errors/index.js';
import { routeConfig, routeTemplate, sendError } from '../http/index.js';
import type { Logger } from '../log/index.js';
import type { AdminPrincipal } from './sessions.js';

/**
 * The role a request to the admin API acts with: its token's, or its console session's (its token's, or the
 * one its person's groups gave). A request without a credential never reaches a handler: `viewer` is moot.
 */
export function roleOf(request: FastifyRequest): Role {
  return request.admin?.role ?? 'viewer';
}

/** Who the refusal speaks to: a token, or a person signed in with OpenID Connect. */
const holder = (id: string) => (id.startsWith('per_') ? 'you have' : 'this token has');

const needs = (role: Role) => (role === 'owner' ? 'the owner role' : `the ${role} role or above`);

/** The refusal of an operation, or of a part of one, that needs `needed` from a holder of `held`. */
export function insufficientRole(what: string, needed: Role, held: AdminPrincipal | null): ApiError {
  const role = held?.role ?? 'viewer';
  return new ApiError(
    'insufficient_role',
    `${what} needs ${needs(needed)}; ${holder(held?.id ?? '')} the ${role} role`,
  );
}

/**
 * Refuses, with 403 `insufficient_role`, a request whose token lacks the least role its operation names
 * (`role` in the contract), and audits the refusal as `access.refused` before answering: who tried what.
 * Runs after `requireAdmin`, so every request it sees has a token or is a sign-in without one.
 */
export function requireRole(
  app: FastifyInstance,
  deps: { audit: AuditRepository; clock: Clock; logger: Logger },
): void {
  app.addHook('onRequest', (request, reply, done) => {
    const { role: needed, operationId } = routeConfig(request);
    const token = request.admin;
    if (needed === undefined || token === null || roleAllows(token.role, needed)) return done();
    const refusal = insufficientRole(`${operationId}`, needed, token);
    const entry = {
      at: new Date(deps.clock.now()).toISOString(),
      actor: token.id,
      action: 'access.refused' as const,
      target: `${operationId}`,
      details: {
        method: request.method,
        route: routeTemplate(request) ?? null,
        role: token.role,
        needs: needed,
        ...(request.adminSession === null ? {} : { session: true }),
      },
    };
    // The refusal stands whether or not the record could be written; a store that is down says so itself.
    deps.audit.record(entry).then(
      () => sendError(request, reply, refusal.code, refusal.message),
      (error: unknown) => {
        deps.logger.warn({ err: error, operationId }, 'the audit could not record a refused request');
        sendError(request, reply, refusal.code, refusal.message);
      },
    );
  });
}
