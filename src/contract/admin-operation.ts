import type { Operation } from './operation.js';
import type { Role } from './roles.js';

/**
 * An operation of the admin API, as each resource's module lists its own: every one names the least role it
 * needs. `S` and `P` are the names of that module's body and parameter schemas, so an operation can name
 * only schemas its module holds.
 */
export type AdminOperation<S extends string, P extends string> = Operation<S, P> & { role: Role };

/** The errors of every admin operation that takes a body: a bad one, one too large, one not JSON. */
export const ADMIN_BODY_ERRORS = [400, 413, 415] as const;
