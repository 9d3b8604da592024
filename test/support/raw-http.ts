import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

/** One HTTP/1.1 response as it came off the wire. */
export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/**
 * A TCP connection that speaks HTTP/1.1 by hand, for tests that need what `fetch` hides: a request sent in
 * pieces, the exact moment the server closes the connection, and certainty that two requests used the same
 * connection (`fetch` silently reconnects).
 */
export class RawConnection {
  readonly socket: Socket;
  /** `performance.now()` when the TCP connection was established. */
  readonly connectedAt: number;
  /** Resolves with `performance.now()` once the connection is fully closed, whoever closed it. */
  readonly closed: Promise<number>;
  #received = Buffer.alloc(0);
  #isClosed = false;
  #wake: (() => void) | undefined;

  private constructor(socket: Socket) {
    this.socket = socket;
    this.connectedAt = performance.now();
    // Writing to a connection the server has just closed fails with EPIPE or ECONNRESET; the tests look at
    // `closed` instead, so the error must not crash the test process.
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      this.#received = Buffer.concat([this.#received, chunk]);
      this.#wake?.();
    });
    // Not `once(socket, 'close')`: that would reject on the 'error' that often precedes the close.
    this.closed = new Promise((resolve) => {
      socket.once('close', () => {
        this.#isClosed = true;
        this.#wake?.();
        resolve(performance.now());
      });
    });
  }

  /** Opens a connection to the host and port of `url`. */
  static async open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    const socket = connect({ host: hostname, port: Number(port) });
    socket.setNoDelay(true);
    await once(socket, 'connect');
    return new RawConnection(socket);
  }

  get isClosed(): boolean {
    return this.#isClosed;
  }

  /** Everything received so far that no `readResponse` consumed, as text. */
  get unread(): string {
    return this.#received.toString('latin1');
  }

  /** Writes bytes and waits until they were handed to the kernel. */
  async write(data: string): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.socket.write(data, (error) => (error ? reject(error) : resolve()));
    });
  }

  /**
   * Reads the next complete response (status line, headers and a Content-Length body). Interim `1xx`
   * responses are returned like any other, so a caller can wait for `100 Continue`. Rejects if the
   * connection closes first or nothing complete arrives within `timeoutMs`.
   */
  async readResponse(timeoutMs = 10_000): Promise<RawResponse> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const parsed = this.#parse();
      if (parsed !== undefined) return parsed;
      if (this.#isClosed) {
        throw new Error(
          `connection closed before a complete response; received: ${JSON.stringify(this.unread)}`,
        );
      }
      const left = deadline - performance.now();
      if (left <= 0)
        throw new Error(
          `no complete response within ${timeoutMs} ms; received: ${JSON.stringify(this.unread)}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  /** Destroys the connection from this side. */
  destroy(): void {
    this.socket.destroy();
  }

  #parse(): RawResponse | undefined {
    const end = this.#received.indexOf('\r\n\r\n');
    if (end === -1) return undefined;
    const [statusLine = '', ...lines] = this.#received.subarray(0, end).toString('latin1').split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
    if (!match?.[1]) throw new Error(`not an HTTP response: ${JSON.stringify(statusLine)}`);
    const status = Number(match[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    if (headers['transfer-encoding'] !== undefined) {
      throw new Error(`RawConnection reads Content-Length bodies only, got ${headers['transfer-encoding']}`);
    }
    // 1xx, 204 and 304 have no body whatever their headers say.
    const length =
      status < 200 || status === 204 || status === 304 ? 0 : Number(headers['content-length'] ?? 0);
    const bodyStart = end + 4;
    if (this.#received.length < bodyStart + length) return undefined;
    const body = this.#received.subarray(bodyStart, bodyStart + length).toString('utf8');
    this.#received = this.#received.subarray(bodyStart + length);
    return { status, headers, body };
  }
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves with `promise`'s value, or with `'timeout'` if it takes longer than `ms`. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(resolve, ms, 'timeout');
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
