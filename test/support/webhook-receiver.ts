import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver was sent: its path, headers and body, as it arrived. */
export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** How the receiver answers one request; `hold` never answers (a receiver that hangs). */
export type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hold';

export interface ReceiverOptions {
  /**
   * What the request of this index (0 for the first to arrive) waits before it is answered: milliseconds, or a
   * promise the test settles (a gate). A slow receiver keeps attempts under way long enough to overlap.
   */
  delay?: (index: number) => number | Promise<unknown>;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  received: Received[];
  /**
   * Every request that arrived while another with its `webhook-id` was still open here: one delivery attempted
   * twice at once. A request is open from its headers' arrival until its answer is sent or its connection
   * closes, which is before the sender can read the answer, so an attempt sent after another's answer is
   * never counted.
   */
  overlaps: Received[];
  /** How many requests are open now. */
  open(): number;
  /** The most requests that were open at once. */
  peakOpen(): number;
  /** Answers the next requests with these, in order; once they are used up, 200 with `ok`. */
  answer(...answers: Answer[]): void;
  /** While on, every request is held unanswered, whatever `answer` queued (a receiver that hangs). */
  holdAll(on: boolean): void;
  /** Resolves once `count` requests in all have arrived. */
  arrived(count: number): Promise<void>;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 and a free port, as an integrator's endpoint would be. */
export async function startWebhookReceiver(options: ReceiverOptions = {}): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const overlaps: Received[] = [];
  const queue: Answer[] = [];
  let holding = false;
  const waiting: { count: number; resolve: () => void }[] = [];
  /** The requests open now, by `webhook-id`. */
  const openById = new Map<string, number>();
  let open = 0;
  let peakOpen = 0;
  const server = http.createServer((request, response) => {
    const id = request.headers['webhook-id'];
    const key = typeof id === 'string' ? id : undefined;
    const already = key === undefined ? 0 : (openById.get(key) ?? 0);
    if (key !== undefined) openById.set(key, already + 1);
    open += 1;
    peakOpen = Math.max(peakOpen, open);
    response.once('close', () => {
      open -= 1;
      if (key === undefined) return;
      const left = (openById.get(key) ?? 1) - 1;
      if (left === 0) openById.delete(key);
      else openById.set(key, left);
    });
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const arrived = {
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(arrived);
      if (already > 0) overlaps.push(arrived);
      for (const wait of waiting.filter((entry) => received.length >= entry.count)) {
        waiting.splice(waiting.indexOf(wait), 1);
        wait.resolve();
      }
      const answer = holding ? 'hold' : (queue.shift() ?? { status: 200, body: 'ok' });
      if (answer === 'hold') return;
      const delay = options.delay?.(received.length - 1) ?? 0;
      if (typeof delay !== 'number') await delay;
      else if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      // The sender gave up meanwhile (its timeout): there is no one left to answer.
      if (response.destroyed) return;
      response.writeHead(answer.status, answer.headers).end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    overlaps,
    open: () => open,
    peakOpen: () => peakOpen,
    answer: (...answers) => queue.push(...answers),
    holdAll: (on) => {
      holding = on;
    },
    arrived: (count) =>
      received.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiting.push({ count, resolve })),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
