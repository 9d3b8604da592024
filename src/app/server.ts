import type { FastifyInstance } from 'fastify';
import { type AppDeps, buildApp } from './app.js';
import { HTTP_TIMEOUTS } from './timeouts.js';

export interface RunningServer {
  app: FastifyInstance;
  /** The address the server listens on, such as `http://127.0.0.1:8080`. */
  url: string;
  /** Stops accepting connections, drains in-flight requests, closes the storage. Bounded by the drain time. */
  close(): Promise<void>;
}

/** Builds the app and listens on the configured host and port (0 picks a free port). */
export async function startServer(deps: AppDeps): Promise<RunningServer> {
  const app = await buildApp(deps);
  const url = await app.listen({
    host: deps.config.host,
    port: deps.config.port,
    listenTextResolver: (address) => `Pet Store API listening on ${address}`,
  });
  return { app, url, close: () => drain(app) };
}

async function drain(app: FastifyInstance): Promise<void> {
  // Connections that finish their last request while we drain become idle; close them as they do, so a
  // keep-alive client cannot hold the process open until the keep-alive timeout.
  const sweeper = setInterval(() => app.server.closeIdleConnections(), 100);
  const deadline = new Promise<'timeout'>((resolve) =>
    setTimeout(resolve, HTTP_TIMEOUTS.drain, 'timeout').unref(),
  );
  try {
    const result = await Promise.race([app.close().then(() => 'closed' as const), deadline]);
    if (result === 'timeout') {
      app.log.warn('drain time exceeded; closing the remaining connections');
      app.server.closeAllConnections();
    }
  } finally {
    clearInterval(sweeper);
  }
}
