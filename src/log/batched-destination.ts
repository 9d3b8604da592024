import fs from 'node:fs';
import { pino } from 'pino';

type SonicBoom = ReturnType<typeof pino.destination>;

/** The longest a line waits before it is handed to sonic-boom, which writes it at once. */
const HOLD_MS = 10;
/**
 * Pending lines of at least this many characters are handed over at once, without waiting. Batches of 64 KiB
 * cost more than they saved: lines held that long outlive young-generation collections, which copy them.
 */
const HAND_OVER_CHARS = 16 * 1024;
/** How long a write at exit keeps retrying a full pipe before it gives up on the last lines. */
const EXIT_WRITE_PATIENCE_MS = 1000;

/**
 * The destination of the process's logger on stdout: lines are gathered for at most {@link HOLD_MS} (or
 * until {@link HAND_OVER_CHARS} are pending) and handed to pino's asynchronous destination, sonic-boom, as
 * one string. Handed one line at a time, sonic-boom appends each to its last pending chunk and measures that
 * whole chunk's UTF-8 length again, and starts a write on the thread pool for every few lines; with a line
 * per request (the access log) that was the largest cost of logging (`npm run bench:observability`).
 *
 * Lines still gathered when the process exits, a crash included, are written synchronously after
 * sonic-boom's own pending lines, in order. Only a write already in flight when the process exits can be
 * cut short, as with sonic-boom alone: an asynchronous write cannot be waited for in an exit handler.
 */
export class BatchedDestination {
  readonly #sink: SonicBoom;
  readonly #fd: number;
  #lines: string[] = [];
  #chars = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(fd: number) {
    this.#fd = fd;
    this.#sink = pino.destination({ dest: fd, sync: false });
    process.on('exit', () => this.flushSync());
  }

  write(line: string): boolean {
    this.#lines.push(line);
    this.#chars += line.length;
    if (this.#chars >= HAND_OVER_CHARS) this.#handOver();
    else this.#timer ??= setTimeout(this.#handOver, HOLD_MS).unref();
    return true;
  }

  /** pino's `logger.flush(callback)`: calls back once every line logged so far is written. */
  flush(callback: (error?: Error) => void): void {
    this.#handOver();
    this.#sink.flush(callback);
  }

  /** Writes every line logged so far before returning: sonic-boom's pending lines, then the gathered ones. */
  flushSync(): void {
    if (!this.#sinkEnded()) this.#sink.flushSync();
    const batch = this.#take();
    if (batch !== '') writeAllSync(this.#fd, Buffer.from(batch));
  }

  readonly #handOver = (): void => {
    const batch = this.#take();
    if (batch === '') return;
    if (this.#sinkEnded()) writeAllSync(this.#fd, Buffer.from(batch));
    else this.#sink.write(batch);
  };

  /** pino ends sonic-boom when the event loop runs dry (`beforeExit`); lines logged after that go straight out. */
  #sinkEnded(): boolean {
    return (this.#sink as SonicBoom & { destroyed: boolean }).destroyed;
  }

  #take(): string {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#lines.join('');
    this.#lines = [];
    this.#chars = 0;
    return batch;
  }
}

/** Writes all of `buffer`, waiting out a full non-blocking pipe for at most {@link EXIT_WRITE_PATIENCE_MS}. */
function writeAllSync(fd: number, buffer: Buffer): void {
  const waiting = new Int32Array(new SharedArrayBuffer(4));
  const giveUpAt = Date.now() + EXIT_WRITE_PATIENCE_MS;
  let offset = 0;
  while (offset < buffer.length) {
    try {
      offset += fs.writeSync(fd, buffer, offset);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== 'EAGAIN' && code !== 'EBUSY') || Date.now() > giveUpAt) return;
      Atomics.wait(waiting, 0, 0, 10);
    }
  }
}
