import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  OPERATIONS,
  type Operation,
  type OperationId,
  PARAMETER_SCHEMAS,
  SCHEMAS,
} from '../contract/index.js';
import { ApiError } from '../errors/index.js';

/**
 * A handler answers through `reply`. It may answer synchronously and return undefined (the hot paths do, to
 * save a promise per request), or return a promise.
 */
export type OperationHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> | undefined;

/** One handler per operation of the contract: the compiler demands every one. */
export type OperationHandlers = Record<OperationId, OperationHandler>;

/** Route config that marks the 405 answers, which serve no operation of the contract. */
export interface RouteConfig {
  operationId?: OperationId;
  methodNotAllowed?: boolean;
  /** A deprecated operation: deprecation headers on every answer, 410 after its sunset. */
  deprecated?: boolean;
}

/** A route's hooks of one kind as a list: Fastify takes one function, a list of them, or none. */
export function hookList<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}

const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** `/pets/{petId}` (OpenAPI) to `/pets/:petId` (Fastify). */
export function toRoutePath(openApiPath: string): string {
  return openApiPath.replace(/\{(\w+)\}/g, ':$1');
}

function schemaFor(operation: Operation): Record<string, unknown> {
  const success = SCHEMAS[operation.success.schema];
  return {
    ...(operation.requestBody ? { body: SCHEMAS[operation.requestBody] } : {}),
    // Every operation refuses query parameters it does not know, as bodies refuse unknown fields.
    querystring: PARAMETER_SCHEMAS[operation.query ?? 'NoQuery'],
    ...(operation.params ? { params: PARAMETER_SCHEMAS[operation.params] } : {}),
    response: {
      [operation.success.status]: operation.success.array ? { type: 'array', items: success } : success,
    },
  };
}

/**
 * Serves every operation of the contract with its handler, validation and serialization, and answers 405
 * with `Allow` for the other methods on each documented path. Register inside the `/v1` prefix.
 */
export function registerOperations(app: FastifyInstance, handlers: OperationHandlers): void {
  const methodsByPath = new Map<string, string[]>();
  for (const operation of OPERATIONS as readonly Operation[]) {
    const url = toRoutePath(operation.path);
    methodsByPath.set(url, [...(methodsByPath.get(url) ?? []), operation.method]);
    app.route({
      method: operation.method,
      url,
      schema: schemaFor(operation),
      config: {
        operationId: operation.operationId as OperationId,
        deprecated: operation.deprecated === true,
      } satisfies RouteConfig,
      handler: handlers[operation.operationId as OperationId],
    });
  }
  for (const [url, allowed] of methodsByPath) {
    // HEAD comes with GET (exposeHeadRoutes).
    const served = ALL_METHODS.filter(
      (method) => allowed.includes(method) || (method === 'HEAD' && allowed.includes('GET')),
    );
    const allow = served.join(', ');
    app.route({
      method: ALL_METHODS.filter((method) => !served.includes(method)),
      url,
      config: { methodNotAllowed: true } satisfies RouteConfig,
      handler: async (request) => {
        throw new ApiError(
          'method_not_allowed',
          `Method ${request.method} is not allowed here; use ${allow}`,
          {
            allow,
          },
        );
      },
    });
  }
}
