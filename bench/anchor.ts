/**
 * The anchors of the list benchmark: a bare server answering every GET with a fixed answer. Requests/s of
 * the service are reported as a ratio to them, measured in the same run (BENCHMARKS.md: absolute figures
 * drift about 25%).
 *
 * Two kinds. `http` (the default) is a bare `node:http` server: the anchor, the cheapest possible
 * answer. `fastify` is a bare Fastify app with one route and no hooks, answering as the service's list does
 * (`reply.hijack()`, then one `writeHead` and one `end`: src/http/send.ts): what the framework alone costs,
 * so that the gap between it and the service is the service's own hooks and work.
 *
 * Usage: node anchor.js <body file> <answer file> [http|fastify]. The answer file is JSON: `{"headers":
 * {...}, "keepAliveSeconds": N, "notModified": {"etag": ..., "headers": {...}}}`: both kinds answer a GET
 * whose If-None-Match is that ETag with 304 and those headers, as the service does. The headers are
 * written as given (content-length is computed), and Node
 * adds Date, Connection and Keep-Alive as it does for the service. Prints `anchor listening on
 * http://127.0.0.1:PORT`.
 */
import fs from 'node:fs';
import http from 'node:http';
import Fastify from 'fastify';

interface Answer {
  headers: Record<string, string>;
  keepAliveSeconds?: number;
  notModified?: { etag: string; headers: Record<string, string> };
}

const [bodyFile, answerFile, kind = 'http'] = process.argv.slice(2);
if (bodyFile === undefined || answerFile === undefined || (kind !== 'http' && kind !== 'fastify')) {
  process.stderr.write('usage: node anchor.js <body file> <answer file> [http|fastify]\n');
  process.exit(2);
}

const body = fs.readFileSync(bodyFile);
const answer = JSON.parse(fs.readFileSync(answerFile, 'utf8')) as Answer;
// Built once: the anchor models the cheapest possible answer, so nothing is computed per request.
const okHeaders = { ...answer.headers, 'content-length': String(body.length) };
const { notModified } = answer;
const keepAliveMs = answer.keepAliveSeconds === undefined ? undefined : answer.keepAliveSeconds * 1000;

function announce(server: http.Server): void {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(`anchor listening on http://127.0.0.1:${port}\n`);
}

if (kind === 'http') {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET') {
      res.writeHead(405, { allow: 'GET', 'content-length': '0' }).end();
      return;
    }
    // The service's 304 for the list's own ETag, compared as the service compares a single tag first.
    if (notModified !== undefined && req.headers['if-none-match'] === notModified.etag) {
      res.writeHead(304, notModified.headers).end();
      return;
    }
    res.writeHead(200, okHeaders).end(body);
  });
  if (keepAliveMs !== undefined) server.keepAliveTimeout = keepAliveMs;
  server.listen(0, '127.0.0.1', () => announce(server));
  process.once('SIGTERM', () => {
    server.closeAllConnections();
    server.close();
  });
} else {
  const app = Fastify(keepAliveMs === undefined ? {} : { keepAliveTimeout: keepAliveMs });
  app.get('/*', (request, reply) => {
    reply.hijack();
    if (notModified !== undefined && request.headers['if-none-match'] === notModified.etag) {
      reply.raw.writeHead(304, notModified.headers).end();
      return;
    }
    reply.raw.writeHead(200, okHeaders).end(body);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  announce(app.server);
  process.once('SIGTERM', () => {
    app.server.closeAllConnections();
    void app.close();
  });
}
