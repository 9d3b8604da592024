import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import tls from 'node:tls';
import { freePort } from './process.js';

const CADDY = '/usr/bin/caddy';

/** A real Caddy with on-demand TLS from its internal CA, asking `askUrl` before it issues a certificate. */
export interface TestCaddy {
  /** Its HTTPS port on 127.0.0.1. */
  port: number;
  output: string[];
  stop(): Promise<void>;
}

/**
 * Starts Caddy on ports of its own with `admin off`, its data in `dir`, proxying to `upstream` (host:port):
 * nothing here depends on, or collides with, a system Caddy service. Pass `port` to choose the HTTPS port.
 */
export async function startCaddy(options: {
  dir: string;
  askUrl: string;
  upstream: string;
  port?: number;
}): Promise<TestCaddy> {
  assert.ok(existsSync(CADDY), `${CADDY} is missing: install Debian's caddy (apt-get install -y caddy)`);
  const { dir } = options;
  const port = options.port ?? (await freePort());
  const httpPort = await freePort();
  for (const sub of ['home', 'data', 'config', 'storage'])
    mkdirSync(path.join(dir, sub), { recursive: true });
  const caddyfile = `{
	admin off
	auto_https disable_redirects
	http_port ${httpPort}
	https_port ${port}
	storage file_system {
		root ${path.join(dir, 'storage')}
	}
	local_certs
	skip_install_trust
	on_demand_tls {
		ask ${options.askUrl}
	}
}

https://:${port} {
	bind 127.0.0.1
	tls {
		on_demand
	}
	reverse_proxy ${options.upstream}
}
`;
  const file = path.join(dir, 'Caddyfile');
  writeFileSync(file, caddyfile);
  const output: string[] = [];
  const caddy: ChildProcess = spawn(CADDY, ['run', '--config', file, '--adapter', 'caddyfile'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: path.join(dir, 'home'),
      XDG_DATA_HOME: path.join(dir, 'data'),
      XDG_CONFIG_HOME: path.join(dir, 'config'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [caddy.stdout, caddy.stderr])
    stream?.on('data', (chunk) => output.push(String(chunk)));
  const started = Date.now();
  for (;;) {
    assert.equal(caddy.exitCode, null, `caddy exited:\n${output.join('')}`);
    const listening = await new Promise<boolean>((resolve) => {
      const probe = net.connect(port, '127.0.0.1', () => {
        probe.destroy();
        resolve(true);
      });
      probe.on('error', () => resolve(false));
    });
    if (listening) break;
    assert.ok(Date.now() - started < 15_000, `caddy did not listen:\n${output.join('')}`);
    await sleep(100);
  }
  return {
    port,
    output,
    async stop() {
      if (caddy.exitCode === null) {
        caddy.kill('SIGTERM');
        await once(caddy, 'exit');
      }
    },
  };
}

/** A TLS handshake to Caddy with an SNI name; resolves with the certificate's subject alternative names. */
export function handshake(port: number, servername: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false }, () => {
      const names = socket.getPeerCertificate().subjectaltname ?? '';
      socket.end();
      resolve(names);
    });
    socket.setTimeout(10_000, () => socket.destroy(new Error('handshake timed out')));
    socket.on('error', reject);
  });
}
