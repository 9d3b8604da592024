/**
 * An OTLP/HTTP receiver that keeps nothing, for the tracing variant of the observability bench: it reads
 * each export, answers 200, and counts what came (`GET /` answers `{"exports":N,"bytes":N}`), so the bench
 * can tell that spans really left the service. Prints `otlp sink listening on http://127.0.0.1:PORT`.
 */
import http from 'node:http';

let exports = 0;
let bytes = 0;

const server = http.createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ exports, bytes }));
    return;
  }
  req.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
  });
  req.on('end', () => {
    exports += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(`otlp sink listening on http://127.0.0.1:${port}\n`);
});

process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
});
