import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type ServerProcess, spawnServer } from '../support/process.js';
import { RawConnection, sleep, within } from '../support/raw-http.js';
import { tempDir } from '../support/server.js';

/**
 * A slow client must be cut off within this long after it connected. Node checks the deadlines once per
 * `connectionsCheckingInterval` (1 s), so the 13 s request timeout fires between 13 and 14 s after the
 * request began: a second of headroom for timer lateness.
 */
const CUT_OFF_MS = 15_000;
/** Earlier than this, the server did not let the client trickle at all: something else closed it. */
const TOO_EARLY_MS = 5_000;
/** How often the slow clients send their next piece. */
const TRICKLE_MS = 2_000;

/**
 * Sends `piece(n)` every two seconds until the connection closes, and returns how long after connecting
 * it closed (or 'timeout' if the server still held it open well past the limit).
 */
async function trickleUntilClosed(connection: RawConnection, piece: (n: number) => string) {
  let n = 0;
  const timer = setInterval(() => {
    n += 1;
    if (!connection.isClosed) connection.socket.write(piece(n));
  }, TRICKLE_MS);
  try {
    const closedAt = await within(connection.closed, CUT_OFF_MS + 10_000);
    return closedAt === 'timeout' ? closedAt : closedAt - connection.connectedAt;
  } finally {
    clearInterval(timer);
    connection.destroy();
  }
}

// The cases wait 10 to 15 s each, mostly idle, so they run side by side against one server process.
/**
 * Asserts the server closed the connection in the window we promise (not later, and not so early that the
 * client was never let trickle), saying why in the service's Error format.
 */
async function assertCutOff(
  connection: RawConnection,
  elapsed: number | 'timeout',
  t: { diagnostic: (message: string) => void },
): Promise<void> {
  assert.ok(
    elapsed !== 'timeout',
    `the connection was still open ${CUT_OFF_MS + 10_000} ms after connecting`,
  );
  assert.ok(elapsed < CUT_OFF_MS, `the connection was closed ${Math.round(elapsed)} ms after connecting`);
  assert.ok(elapsed > TOO_EARLY_MS, `the connection was closed after only ${Math.round(elapsed)} ms`);
  t.diagnostic(`closed ${Math.round(elapsed)} ms after connecting`);
  const answer = await connection.readResponse(0);
  assert.equal(answer.status, 408, answer.body);
  assert.equal((JSON.parse(answer.body) as { code?: unknown }).code, 'request_timeout');
}

describe('slow clients', { concurrency: true }, () => {
  let server: ServerProcess;
  let remove: () => void = () => {};

  before(async () => {
    const dir = tempDir('petstore-slow-');
    remove = dir.remove;
    server = await spawnServer(
      { DATABASE_URL: `sqlite:${path.join(dir.dir, 'petstore.db')}`, LOG_LEVEL: 'info' },
      { withKey: true },
    );
  });

  after(async () => {
    if (server !== undefined && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    remove();
  });

  test('a client that never finishes its headers is cut off within 15 s', async (t) => {
    const connection = await RawConnection.open(server.url);
    await connection.write('GET /v1/categories HTTP/1.1\r\nHost: petstore.test\r\n');
    const elapsed = await trickleUntilClosed(connection, (n) => `X-Slow-${n}: ${n}\r\n`);
    await assertCutOff(connection, elapsed, t);
  });

  test('a client that sends its body one byte every 2 s is cut off within 15 s', async (t) => {
    const connection = await RawConnection.open(server.url);
    await connection.write(
      `POST /v1/categories HTTP/1.1\r\nHost: petstore.test\r\n${server.authorization}Content-Type: application/json\r\n` +
        'Content-Length: 100\r\n\r\n{',
    );
    // Spaces keep the body valid JSON so far; at one byte per 2 s, the 100 bytes would take over 3 minutes.
    const elapsed = await trickleUntilClosed(connection, () => ' ');
    await assertCutOff(connection, elapsed, t);
  });

  test('an idle keep-alive connection still serves a request sent 12 s later', async () => {
    const connection = await RawConnection.open(server.url);
    try {
      await connection.write(
        `GET /v1/categories HTTP/1.1\r\nHost: petstore.test\r\n${server.authorization}\r\n`,
      );
      const first = await connection.readResponse();
      assert.equal(first.status, 200);
      assert.equal(first.headers.connection, 'keep-alive');

      // Longer than the 10 s headers timeout: that timeout is for a request being received, not for the
      // pause between two requests, which the 65 s keep-alive timeout governs.
      await sleep(12_000);
      assert.equal(
        connection.isClosed,
        false,
        'the server closed the idle keep-alive connection within 12 s',
      );
      await connection.write(
        `GET /v1/categories HTTP/1.1\r\nHost: petstore.test\r\n${server.authorization}\r\n`,
      );
      const second = await connection.readResponse();
      assert.equal(second.status, 200, second.body);
      assert.ok(Array.isArray(JSON.parse(second.body)), second.body);
    } finally {
      connection.destroy();
    }
  });
});
