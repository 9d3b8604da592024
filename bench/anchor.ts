/**
 * The anchor of the list benchmark: a bare `node:http` server answering every GET with the bytes the
 * service sends for its list, with the same content type. Requests/s of the service are reported as a
 * ratio to this server measured in the same run (BENCHMARKS.md: absolute figures drift about 25%).
 *
 * Usage: node anchor.js <body file> <content type>. Prints `anchor listening on http://127.0.0.1:PORT`.
 */
import fs from 'node:fs';
import http from 'node:http';

const [bodyFile, contentType] = process.argv.slice(2);
if (bodyFile === undefined || contentType === undefined) {
  process.stderr.write('usage: node anchor.js <body file> <content type>\n');
  process.exit(2);
}

const body = fs.readFileSync(bodyFile);
// Built once: the anchor models the cheapest possible answer, so nothing is computed per request.
const okHeaders = { 'content-type': contentType, 'content-length': String(body.length) };

const server = http.createServer((req, res) => {
  if (req.method !== 'GET') {
    res.writeHead(405, { allow: 'GET', 'content-length': '0' }).end();
    return;
  }
  res.writeHead(200, okHeaders).end(body);
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(`anchor listening on http://127.0.0.1:${port}\n`);
});

process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
});
