import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {
  ADMIN_OPERATIONS,
  ADMIN_PARAMETER_SCHEMAS,
  ADMIN_SCHEMAS,
  ApiDescription,
  OPERATIONS,
  Operation,
  PARAMETER_SCHEMAS,
  Role,
  SCHEMAS,
  Scope,
} from '../contract/index.js';
import { ApiError } from '../errors/index.js';

/** The type of the schema `Name` picks from a table of schemas. */
type SchemaType<Table, Name> = Name extends keyof Table
  ? Table[Name] extends TSchema
    ? Static<Table[Name]>
    : never
  : never;

/**
 * The request an operation's handler is given, typed from the operation's own schemas, which validated it
 * before the handler runs: its body (undefined when it takes none, or may be left out), its path parameters
 * and its query. `Schemas` and `Parameters` are the API's tables of body and parameter schemas.
 */
export type OperationRequest<Op, Schemas, Parameters> = FastifyRequest<{
  Body: Op extends { requestBody: infer Name }
    ? SchemaType<Schemas, Name> | (Op extends { optionalBody: true } ? undefined : never)
    : undefined;
  Params: Op extends { params: infer Name } ? SchemaType<Parameters, Name> : Record<string, never>;
  Querystring: Op extends { query: infer Name } ? SchemaType<Parameters, Name> : Record<string, never>;
}>;

/**
 * A handler answers through `reply`. It may answer synchronously and return undefined (the hot paths do, to
 * save a promise per request), or return a promise.
 */
export type TypedHandler<Request> = (request: Request, reply: FastifyReply) => Promise<unknown> | undefined;

/**
 * The handler of each operation of a table of operations, each typed from its operation's schemas: a
 * handler reads `request.body` as the type of the schema that validated it, and never restates it by a cast.
 * With `Prepared`, a handler may instead answer a prepared body ({@link PreparedHandler}).
 */
export type HandlersOf<
  Operations extends readonly { operationId: string }[],
  Schemas,
  Parameters,
  Prepared extends boolean = false,
> = {
  [Id in Operations[number]['operationId']]: HandlerOrPrepared<
    OperationRequest<Extract<Operations[number], { operationId: Id }>, Schemas, Parameters>,
    Prepared
  >;
};
type HandlerOrPrepared<Request, Prepared extends boolean> =
  | TypedHandler<Request>
  | (Prepared extends true ? { prepared: TypedHandler<Request> } : never);

/**
 * Any operation's handler, as the registry holds it. Declared as a method, whose parameters TypeScript
 * compares both ways: the registry takes every typed handler, since Fastify runs each only on a request its
 * operation's schemas validated.
 */
type Registered = { handle(request: FastifyRequest, reply: FastifyReply): Promise<unknown> | undefined };
export type OperationHandler = Registered['handle'];

/**
 * A handler that answers a GET with `sendPrepared`, which skips the route's `onSend` hooks: its route may
 * have none, and registration refuses one that does (a deprecated operation among them, whose headers are
 * put on by an `onSend` hook).
 */
export interface PreparedHandler {
  prepared: OperationHandler;
}

/** One handler per operation of `/v1`, typed from its schemas: the compiler demands every one. */
export type OperationHandlers = HandlersOf<typeof OPERATIONS, typeof SCHEMAS, typeof PARAMETER_SCHEMAS, true>;

/** One handler per operation of the admin API, typed from its schemas. */
export type AdminHandlers = HandlersOf<
  typeof ADMIN_OPERATIONS,
  typeof ADMIN_SCHEMAS,
  typeof ADMIN_PARAMETER_SCHEMAS
>;

/** The config of every route of an API. */
export interface RouteConfig {
  operationId?: string;
  /** A 405 answer, which serves no operation of the contract. */
  methodNotAllowed?: boolean;
  /** A deprecated operation: deprecation headers on every answer, 410 after its sunset. */
  deprecated?: boolean;
  /** Answered by a `PreparedHandler`. */
  preparedAnswer?: boolean;
  /** The scope an API key needs for the operation. */
  scope?: Scope;
  /** The least role an admin token or a person needs for the operation (admin API). */
  role?: Role;
  /** False for an operation that counts against no rate limit. */
  countsAgainstQuota?: false;
  /** The limit of its own an operation counts against instead of the key's plan. */
  ownLimit?: 'requestLogReads';
}

/** A route's config as Fastify keeps it: ours, with the route's URL (`/v1/pets/:petId`) that Fastify adds. */
export type ServedRouteConfig = RouteConfig & { url?: string };

declare module 'fastify' {
  interface FastifyRequest {
    /** The route's config once `routeConfig` read it; null before. */
    servedRouteConfig: ServedRouteConfig | null;
  }
}

/** Every request starts without its route config read. */
export function decorateRouteConfig(app: FastifyInstance): void {
  app.decorateRequest('servedRouteConfig', null);
}

const NO_CONFIG: ServedRouteConfig = {};

/**
 * The request's route config, read from Fastify once per request: `request.routeOptions` is a getter that
 * builds a new object of twelve fields at every read (53 ns a read, in a loop on this machine), and a list
 * request asked it five times: the rate limit, the metrics, the access log and the request log (twice).
 * Needs `decorateRouteConfig`.
 */
export function routeConfig(request: FastifyRequest): ServedRouteConfig {
  let config = request.servedRouteConfig;
  if (config === null) {
    config = (request.routeOptions.config as ServedRouteConfig | undefined) ?? NO_CONFIG;
    request.servedRouteConfig = config;
  }
  return config;
}

/** One method and path the app answers, with its route config. */
export interface ServedRoute {
  method: string;
  url: string;
  config: RouteConfig | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every method and path registered, in registration order. */
    servedRoutes: readonly ServedRoute[];
  }
}

/** Keeps the served route table, so that a test can hold it against the OpenAPI document. */
export function recordServedRoutes(app: FastifyInstance): void {
  const routes: ServedRoute[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods)
      routes.push({ method, url: route.url, config: route.config as RouteConfig });
  });
  app.decorate('servedRoutes', routes);
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

/** Fastify's `/v1/pets/:petId` as the document writes it, `/v1/pets/{petId}`. */
export function toDocumentPath(routePath: string): string {
  return routePath.replace(/:(\w+)/g, '{$1}');
}

/** Route templates as the document writes them, by Fastify's route URL: made once per route. */
const templates = new Map<string, string>();

/** The template of the request's route (`/v1/pets/{petId}`, never the raw path); undefined for no route. */
export function routeTemplate(request: FastifyRequest): string | undefined {
  const { url } = routeConfig(request);
  if (url === undefined) return undefined;
  let template = templates.get(url);
  if (template === undefined) {
    template = toDocumentPath(url);
    templates.set(url, template);
  }
  return template;
}

/** The named schema of an API, which the contract's types guarantee exists. */
function named(schemas: ApiDescription['schemas'], name: string): TSchema {
  const schema = schemas[name];
  if (schema === undefined) throw new Error(`the contract names a schema it lacks: ${name}`);
  return schema;
}

function schemaFor(operation: Operation, api: ApiDescription): Record<string, unknown> {
  const success = named(api.schemas, operation.success.schema);
  const body = operation.requestBody === undefined ? undefined : named(api.schemas, operation.requestBody);
  return {
    // A body that may be left out arrives as null.
    ...(body === undefined
      ? {}
      : { body: operation.optionalBody ? { anyOf: [body, { type: 'null' }] } : body }),
    // Every operation refuses query parameters it does not know, as bodies refuse unknown fields.
    querystring: named(api.parameters, operation.query ?? 'NoQuery'),
    ...(operation.params ? { params: named(api.parameters, operation.params) } : {}),
    response: {
      [operation.success.status]: operation.success.array ? { type: 'array', items: success } : success,
    },
  };
}

/**
 * Refuses a body sent to an operation that documents none: a client that sends `{"id": "key_other"}` to
 * revoke another key must learn that the body was not read, not see its own key revoked and a 200.
 * (An empty body is none; the JSON parser gives undefined for it.)
 */
function refuseBody(operation: string) {
  return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    if (request.body === undefined) return done();
    done(new ApiError('validation_failed', `${operation} takes no request body: send none`));
  };
}

/**
 * Refuses, at start, a prepared answer that would skip the `onSend` hooks given to its GET route (as the
 * deprecation stage gives one to every deprecated route). Register after the stages that add such hooks,
 * before the routes: onRoute hooks run in the order they were added.
 */
function guardPreparedAnswers(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const config = route.config as RouteConfig | undefined;
    if (config?.preparedAnswer === true && route.method === 'GET' && hookList(route.onSend).length > 0) {
      throw new Error(
        `GET ${route.url} answers a prepared body, which skips onSend hooks, but the route has some: answer ` +
          'it with reply.send',
      );
    }
  });
}

/**
 * Serves every operation of an API with its handler, validation and serialization, and answers 405 with
 * `Allow` for the other methods on each documented path. Register inside the API's prefix, last.
 */
export function registerOperations(
  app: FastifyInstance,
  api: ApiDescription,
  handlers: Readonly<Record<string, OperationHandler | PreparedHandler>>,
): void {
  guardPreparedAnswers(app);
  const methodsByPath = new Map<string, string[]>();
  for (const operation of api.operations) {
    const url = toRoutePath(operation.path);
    methodsByPath.set(url, [...(methodsByPath.get(url) ?? []), operation.method]);
    const entry = handlers[operation.operationId];
    if (entry === undefined) throw new Error(`no handler for the operation ${operation.operationId}`);
    const prepared = typeof entry !== 'function';
    if (prepared && operation.deprecated) {
      throw new Error(
        `${operation.operationId} answers a prepared body, which skips the onSend hook that puts the ` +
          'deprecation headers on: a deprecated operation must answer with reply.send',
      );
    }
    app.route({
      method: operation.method,
      url,
      schema: schemaFor(operation, api),
      ...(operation.requestBody === undefined && operation.method !== 'GET'
        ? { preValidation: refuseBody(`${operation.method} ${api.prefix}${operation.path}`) }
        : {}),
      config: {
        operationId: operation.operationId,
        deprecated: operation.deprecated === true,
        preparedAnswer: prepared,
        ...(operation.scope === undefined ? {} : { scope: operation.scope }),
        ...(operation.role === undefined ? {} : { role: operation.role }),
        ...(operation.countsAgainstQuota === false ? { countsAgainstQuota: false } : {}),
        ...(operation.ownLimit === undefined ? {} : { ownLimit: operation.ownLimit }),
      } satisfies RouteConfig,
      handler: prepared ? entry.prepared : entry,
    });
  }
  for (const [url, allowed] of methodsByPath) {
    // HEAD comes with GET (exposeHeadRoutes).
    const served = ALL_METHODS.filter(
      (method) => allowed.includes(method) || (method === 'HEAD' && allowed.includes('GET')),
    );
    const allow = served.join(', ');
    const refuse = (method: string) =>
      new ApiError('method_not_allowed', `Method ${method} is not allowed here; use ${allow}`, { allow });
    app.route({
      method: ALL_METHODS.filter((method) => !served.includes(method)),
      url,
      config: { methodNotAllowed: true } satisfies RouteConfig,
      // Before the body is read: a method that is not allowed is refused whatever its body, or its lack.
      preParsing: (request, _reply, _payload, done) => done(refuse(request.method)),
      handler: async (request) => {
        throw refuse(request.method);
      },
    });
  }
}
