import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditRepository } from '../audit/index.js';
import type { Clock } from '../clock/index.js';
import { type Role, roleAllows } from '../contract/index.js';
import { ApiError } from '../errors/index.js';
import { routeConfig, routeTemplate, sendError } from '../http/index.js';
import type { Logger } from '../log/index.js';

/** The role a request to the admin API acts with: its token's, or its console session's token's. */
export function roleOf(request: FastifyRequest): Role | undefined {
  return request.adminToken?.role;
}

const needs = (role: Role) => (role === 'owner' ? 'the owner role' : `the ${role} role or above`);

/** The refusal of an operation, or of a part of one, that needs `needed` from a holder of `held`. */
export function insufficientRole(what: string, needed: Role, held: Role): ApiError {
  return new ApiError('insufficient_role', `${what} needs ${needs(needed)}; this token has the ${held} role`);
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
    const token = request.adminToken;
    if (needed === undefined || token === null || roleAllows(token.role, needed)) return done();
    const refusal = insufficientRole(`${operationId}`, needed, token.role);
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
