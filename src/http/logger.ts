import type { FastifyInstance } from 'fastify';
import type { Logger } from '../log/index.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The process's logger, for the lines the app writes: Fastify itself is given none, so `request.log` and
     * `app.log` write nothing (registerLogger).
     */
    logger: Logger;
  }
}

/**
 * Gives the app the process's logger as `app.logger` (and `request.server.logger`). Fastify is made without
 * one: with a logger, Fastify listens for every response's `finish` and `error` and makes a child logger per
 * request, even with its request logging off, which cost 1.5 to 2 µs a request (bare Fastify with and without
 * a logger, ten alternating pairs of wrk runs: docs/durability-and-speed.md), a twentieth of our own work on the list.
 * The lines Fastify would have written for us are ours: errors (errors.ts), the address it listens on
 * (server.ts).
 */
export function registerLogger(app: FastifyInstance, logger: Logger): void {
  app.decorate('logger', logger);
}
