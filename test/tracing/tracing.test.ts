import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { EXPORT_TIMEOUT_MS, MAX_SPAN_PATH } from '../../src/tracing/index.js';
import { eventually } from '../support/assertions.js';
import { BACKENDS } from '../support/backends.js';
import { freePort } from '../support/process.js';
import { RawConnection } from '../support/raw-http.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** A span as the OTLP/HTTP JSON encoding carries it (ids in hex). */
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;

/** An OTLP/HTTP receiver: keeps the raw bodies posted to /v1/traces and the spans decoded from them. */
async function startReceiver(): Promise<{
  url: string;
  bodies: string[];
  spans: () => ReceivedSpan[];
  close: () => Promise<void>;
}> {
  const bodies: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces') {
        bodies.push(Buffer.concat(chunks).toString('utf8'));
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    spans: () =>
      bodies.flatMap((body) => {
        const payload = JSON.parse(body) as {
          resourceSpans: { scopeSpans: { spans: ReceivedSpan[] }[] }[];
        };
        return payload.resourceSpans.flatMap((resource) =>
          resource.scopeSpans.flatMap((scope) => scope.spans),
        );
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const attribute = (span: ReceivedSpan, key: string) => {
  const value = span.attributes.find((entry) => entry.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
};

for (const backend of BACKENDS) {
  describe(`tracing over OTLP/HTTP (${backend.name})`, () => {
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let server: TestServer;
    let key: { id: string; key: string };
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const pathsTraceId = randomBytes(16).toString('hex');
    const sent = { create: '', late: '', list: '', plain: '' };

    before(async () => {
      receiver = await startReceiver();
      server = await startTestServer(
        { OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/`, OTEL_SERVICE_NAME: 'petstore-under-test' },
        { backend },
      );
      key = await server.createKey({ plan: 'pro', name: 'traced' });
      const as = { authorization: `Bearer ${key.key}`, traceparent: `00-${traceId}-${parentId}-01` };
      const create = await server.call('/v1/categories', {
        method: 'POST',
        headers: { ...as, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Traced' }),
      });
      assert.equal(create.status, 201);
      sent.create = create.headers.get('x-request-id') ?? '';
      // A body that arrives after the headers, in a packet of its own: its handler still runs in the request's span.
      const body = JSON.stringify({ name: 'Late' });
      const connection = await RawConnection.open(server.url);
      await connection.write(
        `POST /v1/categories HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key.key}\r\n` +
          `traceparent: ${as.traceparent}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${body.length}\r\n\r\n`,
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      await connection.write(body);
      const late = await connection.readResponse();
      connection.destroy();
      assert.equal(late.status, 201);
      sent.late = late.headers['x-request-id'] ?? '';
      const list = await server.call('/v1/pets?status=available', { headers: as });
      assert.equal(list.status, 200);
      sent.list = list.headers.get('x-request-id') ?? '';
      const plain = await server.call('/v1/pets/1', { headers: { authorization: `Bearer ${key.key}` } });
      sent.plain = plain.headers.get('x-request-id') ?? '';
      // A key pasted into a path by mistake, and a path as long as a request line may be.
      const pasted = { traceparent: `00-${pathsTraceId}-${parentId}-01` };
      await server.call(`/v1/pets/${key.key}`, { headers: pasted });
      await server.call(`/v1/key/${key.key.replaceAll('_', '%5F')}/x`, { headers: pasted });
      await server.call(`/v1/${'x'.repeat(8_000)}`, { headers: pasted });
      // Closing flushes the batch of spans to the receiver.
      await server.close();
    });
    after(() => receiver.close());

    test('a traceparent is continued: a server span named by route, a child span per storage call', () => {
      const spans = receiver.spans().filter((span) => span.traceId === traceId);
      const serverSpans = spans.filter((span) => span.kind === SPAN_KIND_SERVER);
      assert.deepEqual(serverSpans.map((span) => span.name).sort(), [
        'GET /v1/pets',
        'POST /v1/categories',
        'POST /v1/categories',
      ]);
      for (const span of serverSpans) {
        assert.equal(span.parentSpanId, parentId, 'the caller span is the parent');
        assert.equal(attribute(span, 'petstore.key_id'), key.id);
        assert.equal(attribute(span, 'http.route'), span.name.split(' ')[1]);
      }
      const creates = serverSpans.filter((span) => span.name === 'POST /v1/categories');
      for (const create of creates) {
        assert.equal(attribute(create, 'petstore.operation'), 'createCategory');
        assert.equal(attribute(create, 'http.response.status_code'), 201);
      }
      const list = serverSpans.find((span) => span.name === 'GET /v1/pets') as ReceivedSpan;
      assert.equal(attribute(list, 'url.path'), '/v1/pets', 'no query value in the span');

      const children = (parent: ReceivedSpan) =>
        spans.filter((span) => span.parentSpanId === parent.spanId && span.kind === SPAN_KIND_CLIENT);
      const system = backend.storage === 'postgres' ? 'postgresql' : 'sqlite';
      for (const create of creates) {
        const createCall = children(create).find((span) => span.name === 'storage create');
        assert.ok(createCall, 'the create, after its body was parsed, is a child of the request span');
        assert.equal(attribute(createCall, 'db.system.name'), system);
      }
      assert.ok(children(list).some((span) => span.name === 'storage pets.list'));
      if (backend.limiter === 'redis') {
        for (const span of [...creates, list]) {
          assert.ok(
            children(span).some((child) => child.name === 'redis hit'),
            'the limit is a Redis call',
          );
        }
      }
    });

    test('a request without traceparent starts a trace of its own', () => {
      const roots = receiver
        .spans()
        .filter(
          (span) =>
            span.kind === SPAN_KIND_SERVER &&
            span.name === 'GET /v1/pets/{petId}' &&
            span.traceId !== pathsTraceId,
        );
      assert.equal(roots.length, 1);
      assert.notEqual(roots[0]?.traceId, traceId);
      assert.equal(roots[0]?.parentSpanId ?? '', '');
    });

    test('the access log line carries the trace id', () => {
      const lines = server.logs
        .map((line) => JSON.parse(line) as { log?: string; reqId?: string; traceId?: string })
        .filter((line) => line.log === 'access');
      for (const requestId of [sent.create, sent.late, sent.list]) {
        assert.equal(lines.find((line) => line.reqId === requestId)?.traceId, traceId);
      }
      const plain = lines.find((line) => line.reqId === sent.plain);
      assert.match(plain?.traceId ?? '', /^[0-9a-f]{32}$/);
      assert.notEqual(plain?.traceId, traceId);
    });

    test('url.path has credentials redacted and is cut to MAX_SPAN_PATH characters', () => {
      const paths = receiver
        .spans()
        .filter((span) => span.traceId === pathsTraceId && span.kind === SPAN_KIND_SERVER)
        .map((span) => String(attribute(span, 'url.path')));
      assert.deepEqual(paths.slice(0, 2), ['/v1/pets/[redacted]', '/v1/key/[redacted]/x']);
      assert.equal(paths[2], `/v1/${'x'.repeat(MAX_SPAN_PATH - 5)}…`);
      assert.equal(paths[2]?.length, MAX_SPAN_PATH);
    });

    test('no span holds the key, and the service is named as configured', () => {
      assert.ok(receiver.bodies.length > 0);
      for (const body of receiver.bodies) {
        assert.ok(!body.includes(key.key), 'no key material in the exported spans');
        assert.ok(body.includes('petstore-under-test'));
      }
    });
  });
}

describe('tracing off', () => {
  test('without an OTLP endpoint no request is traced and the access log has no trace id', async () => {
    const server = await startTestServer();
    try {
      const response = await server.call('/v1/categories', {
        headers: {
          traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`,
        },
      });
      assert.equal(response.status, 200);
      const line = server.logs
        .map((entry) => JSON.parse(entry) as { log?: string; reqId?: string; traceId?: string })
        .find((entry) => entry.log === 'access' && entry.reqId === response.headers.get('x-request-id'));
      assert.ok(line);
      assert.equal(line.traceId, undefined);
    } finally {
      await server.close();
    }
  });
});

describe('a collector that is not there', () => {
  test('one warning while it is away, one line when it is back, and a stop that does not wait for it', async (t) => {
    const port = await freePort();
    // Batches every 50 ms (the SDK's own setting), so that the test sees several exports fail.
    const delay = process.env.OTEL_BSP_SCHEDULE_DELAY;
    process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
    t.after(() => {
      if (delay === undefined) delete process.env.OTEL_BSP_SCHEDULE_DELAY;
      else process.env.OTEL_BSP_SCHEDULE_DELAY = delay;
    });
    const server = await startTestServer({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` });
    const messages = () =>
      server.logs
        .map((line) => JSON.parse(line) as { msg: string; level: number })
        .filter((line) => /OTLP collector/.test(line.msg));
    for (let round = 0; round < 5; round += 1) {
      assert.equal((await server.call('/v1/categories')).status, 200);
      await eventually(`export ${round} failed`, () => messages().length > 0);
      await sleep(60);
    }
    assert.deepEqual(
      messages().map((line) => `${line.level} ${line.msg}`),
      ['40 could not export spans to the OTLP collector: dropping them until it answers'],
      'one warning for all the batches that failed',
    );

    // The collector comes up on that port: the next batch reaches it, and the log says so once.
    const receiver = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
    t.after(() => receiver.close());
    await eventually('exports reach the collector again', async () => {
      await server.call('/v1/categories');
      return messages().length === 2;
    });
    assert.equal(messages()[1]?.msg, 'exporting spans to the OTLP collector again');

    // Away again, with spans buffered: stopping spends at most one export's time on them.
    await new Promise((resolve) => receiver.close(resolve));
    receiver.closeAllConnections();
    process.env.OTEL_BSP_SCHEDULE_DELAY = '60000';
    const started = performance.now();
    await server.close();
    const took = performance.now() - started;
    assert.ok(took < EXPORT_TIMEOUT_MS + 2_000, `the stop took ${Math.round(took)} ms`);
  });
});
