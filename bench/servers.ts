import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_CPU } from './cpu.js';
import { request, reservePort } from './http.js';
import { collectLines, spawnPinned, waitForLine } from './processes.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The built CLI and anchor, next to this file in dist/. */
export const CLI = path.resolve(HERE, '../src/cli/main.js');
const ANCHOR = path.join(HERE, 'anchor.js');

export interface Server {
  child: ChildProcess;
  url: string;
}

export interface Service extends Server {
  /** The SQLite file the service writes. */
  file: string;
}

/**
 * Starts `petstore serve` on CPU 0 with a fresh SQLite file. With LOG_LEVEL=warn the service does not
 * print its info-level "listening on" line, so the bench picks the port itself and waits for /healthz.
 */
export async function startService(dir: string, cpuProfileDir: string | undefined): Promise<Service> {
  const file = path.join(dir, 'petstore.db');
  const port = await reservePort();
  const profile = cpuProfileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`];
  const child = spawnPinned(SERVER_CPU, process.execPath, [...profile, CLI, 'serve'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${file}`,
      LOG_LEVEL: 'warn',
    },
  });
  const output = collectLines(child);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilHealthy(child, url, 15_000);
  } catch (error) {
    throw new Error(`the service did not start: ${(error as Error).message}\n${output.join('\n')}`);
  }
  return { child, url, file };
}

async function waitUntilHealthy(child: ChildProcess, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error('it exited');
    try {
      if ((await request(`${url}/healthz`)).status === 200) return;
    } catch {
      // Not listening yet: try again shortly.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`/healthz did not answer 200 within ${timeoutMs} ms`);
}

/** Starts the bare `node:http` anchor on CPU 0, answering with `body` and `contentType`. */
export async function startAnchor(dir: string, body: Buffer, contentType: string): Promise<Server> {
  const bodyFile = path.join(dir, 'anchor-body.json');
  fs.writeFileSync(bodyFile, body);
  const child = spawnPinned(SERVER_CPU, process.execPath, [ANCHOR, bodyFile, contentType]);
  const url = await waitForLine(child, /anchor listening on (http:\/\/\S+)/, 10_000);
  return { child, url };
}

/** Fails the bench if a server died between runs: its figures would be wrk's connection errors. */
export function assertRunning(server: Server, name: string): void {
  if (server.child.exitCode !== null || server.child.signalCode !== null) {
    throw new Error(`the ${name} exited (code ${server.child.exitCode}, signal ${server.child.signalCode})`);
  }
}
