import net from 'node:net';

/**
 * A TCP proxy between the service and a server of the test's, for network faults:
 * - `cut()`: every connection is closed, and new ones are closed as they come, until `heal()`;
 * - `blackHole()`: connections are accepted and kept, but nothing passes either way (a partition: the peer
 *   neither answers nor refuses), until `heal()`, which closes them;
 * - `delay(ms)`: every chunk is passed on after `ms`;
 * - `retarget(target)`: connections open now are closed, and new ones go to `target` (a balancer moving a
 *   client to another instance).
 */
export interface TcpProxy {
  port: number;
  cut(): void;
  blackHole(): void;
  delay(ms: number): void;
  heal(): void;
  retarget(target: { host: string; port: number }): void;
  /** Connections open now through the proxy. */
  readonly open: number;
  close(): Promise<void>;
}

type Mode = 'pass' | 'cut' | 'black-hole';

export async function startTcpProxy(first: { host: string; port: number }): Promise<TcpProxy> {
  let target = first;
  let mode: Mode = 'pass';
  let delayMs = 0;
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const forward = (from: net.Socket, to: net.Socket) => {
    from.on('data', (chunk: Buffer) => {
      if (mode === 'black-hole') return;
      if (delayMs === 0) to.write(chunk);
      else setTimeout(() => to.writable && to.write(chunk), delayMs);
    });
    from.on('end', () => to.end());
  };
  const server = net.createServer((client) => {
    client.on('error', () => {});
    if (mode === 'cut') {
      client.destroy();
      return;
    }
    if (mode === 'black-hole') {
      // Accepted, and then silence: the connect succeeds, nothing else ever does.
      const silent = { client, upstream: new net.Socket() };
      pairs.add(silent);
      client.on('close', () => pairs.delete(silent));
      return;
    }
    const upstream = net.connect(target.port, target.host);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    const pair = { client, upstream };
    pairs.add(pair);
    const closed = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', closed);
    upstream.on('close', closed);
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const resetAll = () => {
    for (const { client, upstream } of pairs) {
      client.destroy();
      upstream.destroy();
    }
    pairs.clear();
  };
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      mode = 'cut';
      resetAll();
    },
    blackHole() {
      mode = 'black-hole';
    },
    delay(ms) {
      delayMs = ms;
    },
    retarget(to) {
      target = to;
      resetAll();
    },
    heal() {
      if (mode === 'black-hole') resetAll();
      mode = 'pass';
      delayMs = 0;
    },
    get open() {
      return pairs.size;
    },
    async close() {
      resetAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
