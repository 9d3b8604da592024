import { type ChildProcess, type SpawnOptions, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

const children = new Set<ChildProcess>();
const cleanups: (() => void)[] = [];

/** Registers work that must happen however the bench ends (temp files, for example). Runs once, in reverse. */
export function onCleanup(cleanup: () => void): void {
  cleanups.push(cleanup);
}

/** A new folder below `parent` for the bench's files (`prefix` and a random tail), removed however it ends. */
export function scratchDir(parent: string, prefix: string): string {
  const dir = fs.mkdtempSync(path.join(parent, prefix));
  onCleanup(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Kills every child still running and runs the registered cleanups. Synchronous, because it also runs from
 * the `exit` event, where nothing asynchronous gets a turn.
 */
export function cleanUpNow(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  children.clear();
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      cleanup();
    } catch (error) {
      process.stderr.write(`bench: cleanup failed: ${(error as Error).message}\n`);
    }
  }
}

/** Cleans up on normal exit, on errors that end the process, and on Ctrl-C or SIGTERM. */
export function installCleanupHandlers(): void {
  process.on('exit', cleanUpNow);
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      process.stderr.write(`\nbench: ${signal}, stopping the servers and wrk\n`);
      cleanUpNow();
      process.exit(code);
    });
  }
}

/** Whether a command can be run, judged by `command -v` in a shell, as a user would check it. */
export function commandExists(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** Spawns a command whose process is killed if the bench ends before it does. */
export function spawnTracked(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/**
 * Spawns a command pinned to one CPU with `taskset`. taskset execs the command, so the child's pid is the
 * command's own and killing the child kills the command.
 */
export function spawnPinned(
  cpu: number | string,
  command: string,
  args: string[],
  options: SpawnOptions = {},
): ChildProcess {
  return spawnTracked('taskset', ['-c', String(cpu), command, ...args], options);
}

/** The pids of the children still running: the servers, which count as the bench's own CPU time. */
export function runningChildren(): number[] {
  return [...children].flatMap((child) =>
    child.exitCode === null && child.signalCode === null && child.pid !== undefined ? [child.pid] : [],
  );
}

/** Collects a child's output lines, to quote when it fails. */
export function collectLines(child: ChildProcess): string[] {
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on('line', (line) => lines.push(line));
  }
  return lines;
}

/** Resolves with the first capture of `pattern` in the child's stdout; rejects if it exits or times out first. */
export function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    if (child.stdout) {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const match = pattern.exec(line);
        if (match?.[1] !== undefined) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    }
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`process exited (code ${code}, signal ${signal}) before printing ${pattern}`));
    });
  });
}

/** Asks a child to stop with SIGTERM, so it can drain and close its files; kills it if it takes too long. */
export async function stopChild(child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}

/** Runs a child to completion and returns its exit code and output. */
export async function runToCompletion(
  child: ChildProcess,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/**
 * Runs a bench's `main` and exits with its code, cleaning up every process and file it left however it
 * ends; a failure is one line on stderr, prefixed with the bench's name.
 */
export function runBench(name: string, main: () => Promise<number>): void {
  installCleanupHandlers();
  main().then(
    (code) => {
      cleanUpNow();
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${name}: ${(error as Error).message}\n`);
      cleanUpNow();
      process.exitCode = 1;
    },
  );
}
