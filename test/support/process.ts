import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import net from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type Backend, backendEnvironment } from './backends.js';

/** The built CLI, as `npx petstore` runs it. */
export const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/cli/main.js');

/**
 * A copy of the built package in a directory of its own (its dist and package.json; node_modules linked),
 * whose CLI anchors the default database there: tests of the default path never touch this checkout's data.
 */
export function packageCopy(dir: string): { root: string; cli: string } {
  const root = path.join(dir, 'package');
  const checkout = path.resolve(path.dirname(CLI), '../../..');
  mkdirSync(root, { recursive: true });
  cpSync(path.join(checkout, 'dist'), path.join(root, 'dist'), { recursive: true });
  cpSync(path.join(checkout, 'package.json'), path.join(root, 'package.json'));
  symlinkSync(path.join(checkout, 'node_modules'), path.join(root, 'node_modules'));
  return { root, cli: path.join(root, 'dist', 'src', 'cli', 'main.js') };
}

/** A free TCP port on 127.0.0.1 (closed again at once; the caller binds it next). */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as net.AddressInfo;
  probe.close();
  await once(probe, 'close');
  return port;
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** The data directory the server was given (`PETSTORE_DATA_DIR`), where it writes its first key. */
  dataDir: string;
  /** The first key the server made and wrote to its data directory, or undefined when it made none. */
  firstKey(): string | undefined;
  /** Every line the process wrote to stdout and stderr so far. */
  output: string[];
  /** With `withKey`: an `Authorization: Bearer <key>\r\n` header line of an unlimited key, else ''. */
  authorization: string;
  /** Resolves with the exit code (or signal) once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Spawns `petstore serve` as its own process on port 0 and waits for the line that says where it listens.
 */
export async function spawnServer(
  env: Record<string, string>,
  options: {
    cwd?: string;
    timeoutMs?: number;
    withKey?: boolean;
    cli?: string;
    /** The command that starts it, in place of `node <cli> serve` (`npm start`, say). */
    command?: readonly [string, ...string[]];
  } = {},
): Promise<ServerProcess> {
  // A backstop, not a wait: the start is an event (the line below). Four servers starting at once on a 2-CPU
  // machine under a load of 17 took 80 to 105 s each.
  const timeoutMs = options.timeoutMs ?? 180_000;
  const authorization = options.withKey ? `Authorization: Bearer ${await createUnlimitedKey(env)}\r\n` : '';
  const [file, ...args] = options.command ?? [process.execPath, options.cli ?? CLI, 'serve'];
  // The test's data directory ('' for the default); else, on a SQLite file, the file's directory, where a
  // server may create it (it creates one nowhere else); else one of its own, removed once it exited.
  const sqliteDir = env.DATABASE_URL?.startsWith('sqlite:')
    ? path.dirname(path.resolve(env.DATABASE_URL.slice('sqlite:'.length)))
    : undefined;
  const ownDataDir =
    env.PETSTORE_DATA_DIR === undefined && sqliteDir === undefined
      ? mkdtempSync(path.join(tmpdir(), 'petstore-data-'))
      : undefined;
  const dataDir =
    ownDataDir ??
    (env.PETSTORE_DATA_DIR === undefined ? sqliteDir : undefined) ??
    (env.PETSTORE_DATA_DIR || path.join(path.dirname(options.cli ?? CLI), '..', '..', '..', 'data'));
  const child = spawn(file, args, {
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      ...(env.PETSTORE_DATA_DIR === undefined ? { PETSTORE_DATA_DIR: dataDir } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = once(child, 'exit').then(([code, signal]) => {
    if (ownDataDir !== undefined) rmSync(ownDataDir, { recursive: true, force: true });
    return { code: code as number | null, signal: signal as NodeJS.Signals | null };
  });
  const firstKey = () => {
    // first-api-key.txt for the default database, else a file named after the database (src/cli/serve.ts).
    const files = existsSync(dataDir)
      ? readdirSync(dataDir).filter((name) => /^first-api-key(\.[\w-]+)?\.txt$/.test(name))
      : [];
    for (const name of files) {
      const key = /ps_(live|test)_[0-9A-Za-z]{32}/.exec(readFileSync(path.join(dataDir, name), 'utf8'))?.[0];
      if (key !== undefined) return key;
    }
    return undefined;
  };
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => output.push(line));
  const url = await new Promise<string>((resolve, reject) => {
    // A server that did not start is killed: alive, it would hold the test's process open for good.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${timeoutMs} ms:\n${output.join('\n')}`));
    }, timeoutMs);
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      output.push(line);
      // The line that comes once it listens and has made its first key, if any.
      const match = /"url":"(http:\/\/[^"]+)".*"msg":"serving"/.exec(line);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited before listening:\n${output.join('\n')}`));
    });
  });
  return { child, url, dataDir, firstKey, output, authorization, exited };
}

/** Kills a server a test left running (SIGKILL) and waits for its exit: alive, it would hold the test open. */
export async function killIfRunning(server: ServerProcess | undefined): Promise<void> {
  if (server === undefined || server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGKILL');
  await server.exited;
}

/** A store of one backend for servers that a test kills and starts again on it. */
export interface StoreToCrash {
  /** The servers' environment (info logs: `spawnServer` waits for the line that says where one listens). */
  env: Record<string, string>;
  /** Where to read what the killed servers left: the SQLite file, or the PostgreSQL database. */
  store: { file: string } | { url: string };
  /** An unlimited key on it (`createUnlimitedKey`). */
  key: string;
  /** Drops the database or Redis prefix, and removes the directory of the file. */
  cleanup(): Promise<void>;
}

/** A fresh store of `backend`, its SQLite file in a directory of its own named from `prefix`, with a key on it. */
export async function storeToCrash(backend: Backend, prefix: string): Promise<StoreToCrash> {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const file = path.join(dir, 'petstore.db');
  const storage = await backendEnvironment(backend, file);
  const env = { ...storage.env, LOG_LEVEL: 'info' };
  return {
    env,
    store: backend.storage === 'postgres' ? { url: storage.env.DATABASE_URL as string } : { file },
    key: await createUnlimitedKey(env),
    async cleanup() {
      await storage.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs the CLI to completion and returns its exit code and output. */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  options: {
    cwd?: string;
    cli?: string;
    onStdout?: (soFar: string) => void;
    /** Kills it (SIGKILL; the code is then null) if it has not exited by then: a server that should not start. */
    timeoutMs?: number;
  } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [options.cli ?? CLI, ...args], {
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.timeoutMs !== undefined
      ? { timeout: options.timeoutMs, killSignal: 'SIGKILL' as const }
      : {}),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    options.onStdout?.(stdout);
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  // 'close', not 'exit': the process may exit before its pipes are read to the end, and a loaded machine
  // then lost the last of its output (an empty --help, with exit code 0).
  const [code] = await once(child, 'close');
  return { code: code as number | null, stdout, stderr };
}

/** The options of `keys create` for a key whose limits are far above any test's load. */
export const UNLIMITED_KEY: readonly string[] = [
  '--plan',
  'enterprise',
  '--per-minute',
  '1000000000',
  '--per-day',
  '1000000000',
];

/**
 * Creates a key with `petstore keys create` in the store `env` names, with limits far above any test's
 * load, so process tests measure the server rather than the rate limiter.
 */
export async function createUnlimitedKey(env: Record<string, string>): Promise<string> {
  // The key commands use the database a server made and never create one: make it first.
  const migrated = await runCli(['migrate'], env);
  if (migrated.code !== 0) throw new Error(`migrate failed: ${migrated.stderr}`);
  const result = await runCli(['keys', 'create', ...UNLIMITED_KEY, '--json'], env);
  if (result.code !== 0) throw new Error(`keys create failed: ${result.stderr}`);
  return (JSON.parse(result.stdout) as { key: string }).key;
}

/** Runs `run` for each item, a few at a time (the cores and two more), as CLI runs that only read can go. */
export async function inParallel<T, R>(items: readonly T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await run(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: availableParallelism() + 2 }, worker));
  return results;
}
