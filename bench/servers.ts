import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_CPU } from './cpu.js';
import { request, reservePort } from './http.js';
import { collectLines, runToCompletion, spawnPinned, spawnTracked, waitForLine } from './processes.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The built CLI and anchor, next to this file in dist/. */
export const CLI = path.resolve(HERE, '../src/cli/main.js');
const ANCHOR = path.join(HERE, 'anchor.js');

export interface Server {
  child: ChildProcess;
  url: string;
}

/**
 * Creates an enterprise key whose limits are never reached in a bench run, with the CLI an operator would
 * use, on the storage named by `env` (DATABASE_URL). Every request of the bench sends it: the service
 * answers nothing under /v1 without a key, and a limited key would turn the measurement into 429s.
 */
export async function createUnlimitedKey(env: Record<string, string>, cli = CLI): Promise<string> {
  // The key commands never create a database: make it (and its schema) first, as an operator would.
  const migrate = spawnTracked(process.execPath, [cli, 'migrate'], { env: { ...process.env, ...env } });
  const migrated = await runToCompletion(migrate);
  if (migrated.code !== 0) {
    throw new Error(`petstore migrate failed (exit code ${migrated.code}):\n${migrated.stderr}`);
  }
  const unlimited = String(1_000_000_000);
  const args = ['keys', 'create', '--plan', 'enterprise', '--name', 'bench'];
  args.push('--per-minute', unlimited, '--per-day', unlimited, '--json');
  const child = spawnTracked(process.execPath, [cli, ...args], { env: { ...process.env, ...env } });
  const { code, stdout, stderr } = await runToCompletion(child);
  const key = code === 0 ? keyOf(stdout) : undefined;
  if (key === undefined) {
    throw new Error(`petstore keys create failed (exit code ${code}):\n${stdout}\n${stderr}`);
  }
  return key;
}

/** The `key` field of the one JSON object `keys create --json` prints; undefined if it printed otherwise. */
function keyOf(stdout: string): string | undefined {
  try {
    const { key } = JSON.parse(stdout) as { key?: unknown };
    return typeof key === 'string' ? key : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts `petstore serve` on the server CPU with `env` naming its storage, configured as users run it: the
 * access log on at the default level, its lines written to stdout, which goes to /dev/null here (a log
 * shipper reading a pipe or file would be the operator's cost, not the service's). The bench picks the port
 * itself and waits for /healthz; start-up failures are on stderr.
 */
export async function startService(
  env: Record<string, string>,
  cpuProfileDir: string | undefined,
  /** Another build's CLI, to measure it beside this one (`npm run bench:compare`). */
  cli = CLI,
): Promise<Server> {
  const port = await reservePort();
  const profile = cpuProfileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`];
  // As `npm start` and the CLI's shebang run it: with 32 MiB semi-spaces (src/cli/main.ts says why).
  const child = spawnPinned(
    SERVER_CPU,
    process.execPath,
    [...profile, '--max-semi-space-size=32', cli, 'serve'],
    {
      env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const output = collectLines(child);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilHealthy(child, url, 15_000);
  } catch (error) {
    throw new Error(`the service did not start: ${(error as Error).message}\n${output.join('\n')}`);
  }
  return { child, url };
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

/** What an anchor answers besides the body: see anchor.ts. */
export interface AnchorAnswer {
  headers: Record<string, string>;
  keepAliveSeconds?: number;
  /** Answered 304 with these headers to a GET whose If-None-Match is this ETag. */
  notModified?: { etag: string; headers: Record<string, string> };
}

/**
 * Starts an anchor named `name` on CPU 0, answering every GET with `body` and `answer`: bare `node:http`, or
 * a bare Fastify app (see anchor.ts).
 */
export async function startAnchor(
  dir: string,
  name: string,
  body: Buffer,
  answer: AnchorAnswer,
  kind: 'http' | 'fastify' = 'http',
): Promise<Server> {
  const bodyFile = path.join(dir, `${name}-body.json`);
  const answerFile = path.join(dir, `${name}-answer.json`);
  fs.writeFileSync(bodyFile, body);
  fs.writeFileSync(answerFile, JSON.stringify(answer));
  const child = spawnPinned(SERVER_CPU, process.execPath, [ANCHOR, bodyFile, answerFile, kind]);
  const url = await waitForLine(child, /anchor listening on (http:\/\/\S+)/, 10_000);
  return { child, url };
}

/** Fails the bench if a server died between runs: its figures would be wrk's connection errors. */
export function assertRunning(server: Server, name: string): void {
  if (server.child.exitCode !== null || server.child.signalCode !== null) {
    throw new Error(`the ${name} exited (code ${server.child.exitCode}, signal ${server.child.signalCode})`);
  }
}
