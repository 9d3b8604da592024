/**
 * The anchor of the list benchmark: a bare `node:http` server answering every GET with a fixed answer. Requests/s
 * of the service are reported as a ratio to it, measured in the same run (BENCHMARKS.md: absolute figures
 * drift about 25%).
 *
 * Usage: node anchor.js <body file> <answer file>. The answer file is JSON: `{"headers": {...},
 * "keepAliveSeconds": N}`; the headers are written as given (content-length is computed), and Node adds
 * Date, Connection and Keep-Alive as it does for the service. Prints `anchor listening on http://127.0.0.1:PORT`.
 */
import fs from 'node:fs';
import http from 'node:http';

interface Answer {
  headers: Record<string, string>;
  keepAliveSeconds?: number;
}

const [bodyFile, answerFile] = process.argv.slice(2);
if (bodyFile === undefined || answerFile === undefined) {
  process.stderr.write('usage: node anchor.js <body file> <answer file>\n');
  process.exit(2);
}

const body = fs.readFileSync(bodyFile);
const answer = JSON.parse(fs.readFileSync(answerFile, 'utf8')) as Answer;
// Built once: the anchor models the cheapest possible answer, so nothing is computed per request.
const okHeaders = { ...answer.headers, 'content-length': String(body.length) };

const server = http.createServer((req, res) => {
  if (req.method !== 'GET') {
    res.writeHead(405, { allow: 'GET', 'content-length': '0' }).end();
    return;
  }
  res.writeHead(200, okHeaders).end(body);
});
if (answer.keepAliveSeconds !== undefined) server.keepAliveTimeout = answer.keepAliveSeconds * 1000;

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(`anchor listening on http://127.0.0.1:${port}\n`);
});

process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
});
