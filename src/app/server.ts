import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { type AppDeps, buildApp } from './app.js';
import { keepTickShape } from './tick-shape.js';
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
  // Before the first request, so that an idle spell cannot slow the instance for good (tick-shape.ts).
  keepTickShape();
  const app = await buildApp(deps);
  // Node counts a connection that has not sent a byte as busy (so the headers timeout covers it), which
  // keeps it out of closeIdleConnections(); the drain closes such connections itself. No 'data' listener:
  // one would move the socket's HTTP parsing from C++ into JavaScript, on every request.
  const sockets = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  let url: string;
  try {
    url = await app.listen({ host: deps.config.host, port: deps.config.port });
  } catch (error) {
    // A port in use, say: release the storage, Redis and timers, or their handles keep the process alive.
    await app.close();
    throw listenError(error, deps.config.host, deps.config.port);
  }
  // The line Fastify writes when it has a logger (app.ts makes it without one).
  deps.logger.info(`Pet Store API listening on ${url}`);
  return { app, url, close: () => drain(app, sockets) };
}

/** A server that could not listen: the message names the setting to change, PORT or HOST. */
export class ListenError extends Error {
  override name = 'ListenError';
}

/** What keeps the server from listening at `host:port`, in words that name the setting; else the error. */
function listenError(error: unknown, host: string, port: number): unknown {
  const where = `${host}:${port}`;
  const problem: Record<string, string> = {
    EADDRINUSE: `PORT ${port} is taken on ${host} by another process: stop it, or set PORT to a free port (0 picks one)`,
    EACCES: `PORT ${port} needs privileges this process lacks: set PORT to 1024 or above, and put a proxy in front`,
    EADDRNOTAVAIL: `HOST ${host} is not an address of this machine: set HOST to one of its addresses (127.0.0.1 for this machine only, 0.0.0.0 for every interface)`,
    ENOTFOUND: `HOST ${host} is not a name this machine resolves: set HOST to an address (127.0.0.1, 0.0.0.0)`,
    EAI_AGAIN: `HOST ${host} could not be resolved now: set HOST to an address (127.0.0.1, 0.0.0.0)`,
  };
  const code = (error as { code?: unknown }).code;
  const known = typeof code === 'string' ? problem[code] : undefined;
  return known === undefined
    ? error
    : new ListenError(`could not listen on ${where}: ${known}`, { cause: error });
}

async function drain(app: FastifyInstance, sockets: Set<Socket>): Promise<void> {
  // Connections that finish their last request while we drain become idle; close them as they do, so a
  // keep-alive client cannot hold the process open until the keep-alive timeout. Connections that never
  // sent a request have nothing in flight and are closed too.
  const sweep = () => {
    app.server.closeIdleConnections();
    for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy();
  };
  sweep();
  const sweeper = setInterval(sweep, 100);
  const deadline = new Promise<'timeout'>((resolve) =>
    setTimeout(resolve, HTTP_TIMEOUTS.drain, 'timeout').unref(),
  );
  try {
    const result = await Promise.race([app.close().then(() => 'closed' as const), deadline]);
    if (result === 'timeout') {
      app.logger.warn('drain time exceeded; closing the remaining connections');
      app.server.closeAllConnections();
    }
  } finally {
    clearInterval(sweeper);
  }
}
