import {
  type Context,
  context,
  defaultTextMapGetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { onAnswer, routeConfig, routeTemplate } from '../http/index.js';
import { type Logger, redactCredentials } from '../log/index.js';
import { createOtlpExporter, EXPORT_TIMEOUT_MS } from './exporter.js';

/** Where spans go and what the service calls itself in them (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`). */
export interface TracingOptions {
  /** The OTLP/HTTP traces endpoint, such as `http://collector:4318/v1/traces`. */
  url: string;
  serviceName: string;
}

/** Opens a client span for one call to a backing service, if a request is being traced; call the result to end it. */
export type CallSpans = (call: string) => ((error?: unknown) => void) | undefined;

/** Traces of one process: a server span per request, child spans for the calls made while serving it. */
export interface Tracing {
  /** Starts a server span for every request, continuing a W3C `traceparent`, and ends it with the answer. */
  register(app: FastifyInstance): void;
  /** The trace id of the request's span (for its access log line), if it has one. */
  traceId(request: FastifyRequest): string | undefined;
  /**
   * Client spans of the calls to one backing service, named `<component> <call>` (`storage pets.list`,
   * `redis hit`), with the database system (`sqlite`, `postgresql`, `redis`) as an attribute.
   */
  callSpans(component: string, system: string): CallSpans;
  /** Sends the spans still buffered and stops. */
  shutdown(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The context that carries the request's server span. Every later hook and the handler run in it, the
     * body's parser included: Fastify runs that in an AsyncResource of the request.
     */
    traceContext: Context | null;
  }
}

/**
 * One context manager for the process: the active span follows each request through its promises
 * (AsyncLocalStorage). Set once, by the first tracing started; later ones find it in place.
 */
function ensureContextManager(): void {
  const manager = new AsyncLocalStorageContextManager();
  if (!context.setGlobalContextManager(manager.enable())) manager.disable();
}

/** The longest `url.path` a span carries, in characters: a path can be as long as the request line. */
export const MAX_SPAN_PATH = 256;

/** The path of a request as its span shows it: no query, credentials redacted, at most MAX_SPAN_PATH characters. */
export function spanPath(url: string): string {
  const path = redactCredentials(url.split('?', 1)[0] as string);
  return path.length > MAX_SPAN_PATH ? `${path.slice(0, MAX_SPAN_PATH - 1)}…` : path;
}

/**
 * Tracing with the OpenTelemetry SDK, exported in batches over OTLP/HTTP (JSON). Not `@fastify/otel`: it
 * names every span `request`, wraps each hook in a span of its own, and ends its span in a per-route
 * `onSend` hook that the prepared answers of the hot path are written past; one hook pair here names the
 * span by route and ends it where every answer, prepared or not, is told (`onAnswer`). Attributes hold
 * the operation and the key id, never a key, a query or a body.
 */
export function createTracing(options: TracingOptions, logger: Logger): Tracing {
  ensureContextManager();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [
      new BatchSpanProcessor(createOtlpExporter({ url: options.url, logger }), {
        exportTimeoutMillis: EXPORT_TIMEOUT_MS,
      }),
    ],
  });
  const tracer: Tracer = provider.getTracer('petstore');
  const propagator = new W3CTraceContextPropagator();

  return {
    register(app) {
      app.decorateRequest('traceContext', null);
      app.addHook('onRequest', (request, _reply, done) => {
        const parent = propagator.extract(ROOT_CONTEXT, request.headers, defaultTextMapGetter);
        const route = routeTemplate(request);
        const span = tracer.startSpan(
          route === undefined ? request.method : `${request.method} ${route}`,
          {
            kind: SpanKind.SERVER,
            attributes: {
              'http.request.method': request.method,
              'url.path': spanPath(request.url),
              ...(route === undefined ? {} : { 'http.route': route }),
            },
          },
          parent,
        );
        request.traceContext = trace.setSpan(parent, span);
        context.with(request.traceContext, done);
      });
      onAnswer(app, (request, reply) => {
        const span = request.traceContext === null ? undefined : trace.getSpan(request.traceContext);
        if (span === undefined) return;
        const operation = routeConfig(request).operationId;
        if (operation !== undefined) span.setAttribute('petstore.operation', operation);
        const keyId = request.apiKey?.id ?? request.expiredKey?.id ?? request.admin?.id;
        if (keyId !== undefined) span.setAttribute('petstore.key_id', keyId);
        span.setAttribute('http.response.status_code', reply.statusCode);
        if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      });
    },
    // From the context rather than the span, which is gone once it ended.
    traceId: (request) =>
      request.traceContext === null ? undefined : trace.getSpanContext(request.traceContext)?.traceId,
    callSpans(component, system) {
      return (call) => {
        const active = context.active();
        // Only inside a request: the background work (usage flushes, key reloads) would be a root span each.
        if (trace.getSpan(active) === undefined) return undefined;
        const span = tracer.startSpan(
          `${component} ${call}`,
          { kind: SpanKind.CLIENT, attributes: { 'db.system.name': system, 'petstore.call': call } },
          active,
        );
        return (error) => {
          if (error !== undefined) {
            span.setStatus({ code: SpanStatusCode.ERROR });
            if (error instanceof Error) span.recordException(error);
          }
          span.end();
        };
      };
    },
    async shutdown() {
      // The spans still buffered get one export's time; then the stop goes on without them. A failed last
      // export was logged by the exporter: it never fails the stop.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(resolve, EXPORT_TIMEOUT_MS, 'late');
      });
      const stopped = provider.shutdown().then(
        () => 'done' as const,
        () => 'failed' as const,
      );
      const result = await Promise.race([stopped, late]);
      clearTimeout(timer);
      if (result === 'late') logger.warn({ collector: options.url }, 'stopped without the last spans');
    },
  };
}
