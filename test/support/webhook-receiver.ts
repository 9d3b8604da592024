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

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  received: Received[];
  /** Answers the next requests with these, in order; once they are used up, 200 with `ok`. */
  answer(...answers: Answer[]): void;
  /** While on, every request is held unanswered, whatever `answer` queued (a receiver that hangs). */
  holdAll(on: boolean): void;
  /** Resolves once `count` requests in all have arrived. */
  arrived(count: number): Promise<void>;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 and a free port, as an integrator's endpoint would be. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const queue: Answer[] = [];
  let holding = false;
  const waiting: { count: number; resolve: () => void }[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      for (const wait of waiting.filter((entry) => received.length >= entry.count)) {
        waiting.splice(waiting.indexOf(wait), 1);
        wait.resolve();
      }
      const answer = holding ? 'hold' : (queue.shift() ?? { status: 200, body: 'ok' });
      if (answer === 'hold') return;
      response.writeHead(answer.status, answer.headers).end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
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
