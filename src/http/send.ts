import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { tellPrepared } from './answered.js';

/**
 * Answers 200 with a body that was serialized beforehand, and the given headers besides those the hooks set.
 *
 * A GET is written straight to Node's response in one `writeHead` and one `end`: Fastify's `reply.send`
 * costs about 1 us a request more on the hottest route (bench/run.ts, GET /v1/categories), where the whole
 * budget is about 10 us above a bare `node:http` server. The price is that the route's `onSend` hooks do
 * not run (`onResponse` hooks do), so only a `PreparedHandler` answers this way, and registration refuses
 * one whose route has such hooks (routes.ts); the scope's answer listener (answered.ts) is told here. HEAD goes through `reply.send`, which runs them, drops the
 * body and keeps Content-Length: test/categories/categories.test.ts holds the two answers' headers equal.
 */
export function sendPrepared(
  request: FastifyRequest,
  reply: FastifyReply,
  body: Buffer,
  headers: Readonly<Record<string, string>>,
): undefined {
  if (request.method !== 'GET') {
    reply.headers(headers).send(body);
    return undefined;
  }
  reply.hijack();
  // A copy of the headers the hooks set (request id, rate limits, ...): complete them in place.
  const all = reply.getHeaders() as OutgoingHttpHeaders;
  for (const name in headers) all[name] = headers[name];
  all['content-length'] = String(body.length);
  reply.raw.writeHead(200, all).end(body);
  tellPrepared(request, reply, body.length);
  return undefined;
}
