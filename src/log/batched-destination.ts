import fs from 'node:fs';
import { pino } from 'pino';

type SonicBoom = ReturnType<typeof pino.destination>;

/** Puts a line's bytes into `buffer` from `at`, and returns where they end. */
export type LineEncoder = (buffer: Buffer, at: number) => number;

/** The longest a line waits before it is handed to sonic-boom, which writes it at once. */
const HOLD_MS = 25;
/**
 * The bytes of one batch: lines are handed over once the next might not fit. Each batch is one write on the
 * thread pool, and that hop costs far more than the bytes (60-100 us a write, with the service pinned to one
 * CPU); lines are encoded into the batch as they come, so a batch holds no strings for the garbage collector
 * to copy however long it waits. At 40,000 lines a second a batch fills in about {@link HOLD_MS}.
 */
const BATCH_BYTES = 256 * 1024;
/** A batch smaller than this is handed over as a copy, and its buffer kept for the next lines. */
const COPY_BELOW_BYTES = 16 * 1024;
/** The most bytes a character can take in UTF-8, as JavaScript strings count characters. */
const MAX_BYTES_PER_CHAR = 3;
/** How long a write at exit keeps retrying a full pipe before it gives up on the last lines. */
const EXIT_WRITE_PATIENCE_MS = 1000;

/**
 * The destination of the process's logger on stdout: lines are encoded into a batch of up to
 * {@link BATCH_BYTES}, handed to pino's asynchronous destination, sonic-boom, when the batch is full or its
 * first line has waited {@link HOLD_MS}. Handed one line at a time, sonic-boom starts a write on the thread
 * pool for every few lines and measures and re-encodes its pending text on every one; with a line per
 * request (the access log) that was the largest cost of logging (`npm run bench:observability`).
 *
 * Lines still gathered when the process exits, a crash included, are written synchronously after
 * sonic-boom's own pending lines, in order. Only a write already in flight when the process exits can be
 * cut short, as with sonic-boom alone: an asynchronous write cannot be waited for in an exit handler.
 */
export class BatchedDestination {
  readonly #sink: SonicBoom;
  readonly #fd: number;
  #batch = Buffer.allocUnsafe(BATCH_BYTES);
  #used = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(fd: number) {
    this.#fd = fd;
    this.#sink = pino.destination({ dest: fd, sync: false, contentMode: 'buffer' });
    process.on('exit', () => this.flushSync());
  }

  write(line: string): boolean {
    this.writeEncoded(line.length * MAX_BYTES_PER_CHAR, (batch, at) => at + batch.write(line, at));
    return true;
  }

  /**
   * Writes a line that `encode` puts straight into the batch, in at most `maxBytes`: a writer that encodes
   * its own lines (the access log) makes no string of them.
   */
  writeEncoded(maxBytes: number, encode: LineEncoder): void {
    if (maxBytes > BATCH_BYTES - this.#used) {
      this.#handOver();
      // A line longer than a batch goes on its own.
      if (maxBytes > BATCH_BYTES) {
        const own = Buffer.allocUnsafe(maxBytes);
        this.#send(own.subarray(0, encode(own, 0)));
        return;
      }
    }
    this.#used = encode(this.#batch, this.#used);
    this.#timer ??= setTimeout(this.#handOver, HOLD_MS).unref();
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
    if (batch.length > 0) writeAllSync(this.#fd, batch);
  }

  readonly #handOver = (): void => {
    const batch = this.#take();
    if (batch.length > 0) this.#send(batch);
  };

  #send(bytes: Buffer): void {
    if (this.#sinkEnded()) writeAllSync(this.#fd, bytes);
    // In buffer mode sonic-boom takes Buffers, though its types name only strings.
    else this.#sink.write(bytes as unknown as string);
  }

  /** pino ends sonic-boom when the event loop runs dry (`beforeExit`); lines logged after that go straight out. */
  #sinkEnded(): boolean {
    return (this.#sink as SonicBoom & { destroyed: boolean }).destroyed;
  }

  /**
   * The lines gathered so far. sonic-boom keeps what it is given until written: a full batch is given as it
   * is and the next lines go in a new buffer; a small one (a quiet service) is given as a copy.
   */
  #take(): Buffer {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const used = this.#used;
    this.#used = 0;
    if (used < COPY_BELOW_BYTES) return Buffer.from(this.#batch.subarray(0, used));
    const batch = this.#batch.subarray(0, used);
    this.#batch = Buffer.allocUnsafe(BATCH_BYTES);
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
