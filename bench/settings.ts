/** The bench's settings, from BENCH_* variables (see run.ts), and the checks that the machine can run it. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkBackends } from './backends.js';
import { LOAD_CPU, SERVER_CPU } from './cpu.js';
import { commandExists } from './processes.js';
import { CLI } from './servers.js';

export interface Settings {
  seconds: number;
  warmupSeconds: number;
  rounds: number;
  connections: number;
  /** Where the two-instance mode finds PostgreSQL and Redis; undefined when BENCH_SCALE=off. */
  scale: { postgresUrl: string; redisUrl: string } | undefined;
  tmpdir: string;
  cpuProfileDir: string | undefined;
}

/** A BENCH_* variable that holds a positive whole number, or `fallback` when it is unset. */
export function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer (got ${raw})`);
  return value;
}

/** A BENCH_* variable that holds a whole number, 0 included, or `fallback` when it is unset. */
export function wholeNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be 0 or more (got ${raw})`);
  return value;
}

function scaleSettings(): Settings['scale'] {
  const mode = process.env.BENCH_SCALE || 'on';
  if (mode !== 'on' && mode !== 'off') throw new Error(`BENCH_SCALE must be on or off (got ${mode})`);
  if (mode === 'off') return undefined;
  return {
    postgresUrl: process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379',
  };
}

export function readSettings(): Settings {
  const profileDir = process.env.BENCH_CPU_PROFILE_DIR;
  return {
    seconds: positiveInteger('BENCH_SECONDS', 10),
    warmupSeconds: positiveInteger('BENCH_WARMUP_SECONDS', 2),
    rounds: positiveInteger('BENCH_ROUNDS', 3),
    connections: positiveInteger('BENCH_CONNECTIONS', 50),
    scale: scaleSettings(),
    tmpdir: process.env.BENCH_TMPDIR || os.tmpdir(),
    cpuProfileDir: profileDir ? path.resolve(profileDir) : undefined,
  };
}

/**
 * The settings of a bench that turns configurations about in many short runs on one instance each: runs of
 * BENCH_SECONDS (3 by default), never the two-instance mode.
 */
export function shortRunSettings(): Settings {
  return { ...readSettings(), seconds: positiveInteger('BENCH_SECONDS', 3), scale: undefined };
}

/** Fails early, with the fix, when the machine cannot run the method. */
export function checkPrerequisites(settings: Settings): void {
  if (!commandExists('wrk')) {
    throw new Error('wrk is not on PATH; install it with `apt-get install wrk` (Debian/Ubuntu)');
  }
  if (!commandExists('taskset')) {
    throw new Error('taskset is not on PATH; install it with `apt-get install util-linux`');
  }
  if (os.availableParallelism() < 2) {
    throw new Error(
      `the bench pins the servers to CPU ${SERVER_CPU} and wrk to CPU ${LOAD_CPU}; this machine has 1 CPU`,
    );
  }
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing; build first (npm run build)`);
  if (settings.scale !== undefined) {
    // wrk gives each of its threads, one per instance, connections / threads of them.
    if (settings.connections % 2 !== 0) {
      throw new Error('BENCH_CONNECTIONS must be even, to split it over the two instances');
    }
    for (const command of ['psql', 'redis-cli']) {
      if (!commandExists(command)) {
        throw new Error(
          `${command} is not on PATH; install postgresql-client and redis-tools, or set BENCH_SCALE=off`,
        );
      }
    }
    checkBackends(settings.scale.postgresUrl, settings.scale.redisUrl);
  }
}
