import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { freePort } from './process.js';

const CADDY = '/usr/bin/caddy';

/** A real Caddy with on-demand TLS from its internal CA, asking the service before it issues a certificate. */
export interface TestCaddy {
  /** Its HTTPS port on 127.0.0.1. */
  port: number;
  output: string[];
  stop(): Promise<void>;
}

/** The TLS front as shipped, which docs/production.md tells operators to install. */
export const SHIPPED_CADDYFILE = fileURLToPath(new URL('../../../deploy/Caddyfile', import.meta.url));

/** The service's address in the shipped Caddyfile: its default HOST and PORT. */
const SHIPPED_UPSTREAM = '127.0.0.1:8080';

/** `text` with `from` replaced, failing when the shipped file no longer has exactly `count` of them. */
function replaceExactly(text: string, from: string, to: string, count: number): string {
  const parts = text.split(from);
  assert.equal(parts.length - 1, count, `deploy/Caddyfile has ${count} of ${JSON.stringify(from)}`);
  return parts.join(to);
}

/**
 * The shipped `deploy/Caddyfile`, templated for a test: the service at `upstream` instead of 127.0.0.1:8080
 * (both the ask and the proxy), and global options that keep Caddy to itself (`admin off`, its own ports and
 * storage, its internal CA, no trust store changes), the site bound to 127.0.0.1. Everything else is the file
 * as shipped, so that what is tested is what operators install.
 */
export function testCaddyfile(options: {
  upstream: string;
  httpPort: number;
  port: number;
  storage: string;
}) {
  // Its comments name the address too: only its directives are templated.
  const shipped = `\n${readFileSync(SHIPPED_CADDYFILE, 'utf8').replace(/^#.*\n/gm, '')}`;
  const proxied = replaceExactly(shipped, SHIPPED_UPSTREAM, options.upstream, 2);
  const globals = replaceExactly(
    proxied,
    '\n{\n',
    `
{
	admin off
	auto_https disable_redirects
	http_port ${options.httpPort}
	https_port ${options.port}
	storage file_system {
		root ${options.storage}
	}
	local_certs
	skip_install_trust
`,
    1,
  );
  return replaceExactly(globals, '\nhttps:// {\n', `\nhttps://:${options.port} {\n\tbind 127.0.0.1\n`, 1);
}

/**
 * Starts Caddy with the shipped Caddyfile (`testCaddyfile`) on ports of its own with `admin off`, its data in
 * `dir`, in front of the service at `upstream` (host:port), which it asks before it issues a certificate:
 * nothing here depends on, or collides with, a system Caddy service. Pass `port` to choose the HTTPS port.
 */
export async function startCaddy(options: {
  dir: string;
  upstream: string;
  port?: number;
}): Promise<TestCaddy> {
  assert.ok(existsSync(CADDY), `${CADDY} is missing: install Debian's caddy (apt-get install -y caddy)`);
  const { dir } = options;
  const port = options.port ?? (await freePort());
  const httpPort = await freePort();
  for (const sub of ['home', 'data', 'config', 'storage'])
    mkdirSync(path.join(dir, sub), { recursive: true });
  const caddyfile = testCaddyfile({
    upstream: options.upstream,
    httpPort,
    port,
    storage: path.join(dir, 'storage'),
  });
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
