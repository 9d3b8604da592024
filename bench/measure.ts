/**
 * One kind of wrk run against one deployment: a warm-up whose figures are dropped, then the measured run,
 * with what its requests paid in Redis calls and PostgreSQL write transactions where the deployment uses
 * them.
 */
import {
  type Deployment,
  firstServer,
  LIST_PATH,
  type Scaled,
  type SharedStateCounters,
} from './deployments.js';
import type { Measured } from './report.js';
import type { Server } from './servers.js';
import type { Settings } from './settings.js';
import { runWrk, type WrkScripts, writeScripts } from './wrk.js';

/** What wrk loads in one kind of run: the servers, with scripts that carry their key and addresses. */
export interface Target {
  /** The list's URL on the first server: wrk takes its path and Host header; the script sets addresses. */
  url: string;
  servers: Server[];
  scripts: WrkScripts;
  backends: boolean;
  /** Redis calls and PostgreSQL write transactions so far; only where the service uses them. */
  counters?: () => SharedStateCounters;
}

export function targetOf(dir: string, deployment: Deployment | Scaled): Target {
  const urls = deployment.servers.map((server) => server.url);
  const scripts = writeScripts(dir, deployment.name.replace(/\W/g, '-'), { key: deployment.key, urls });
  const url = `${firstServer(deployment).url}${LIST_PATH}`;
  const target = { url, servers: deployment.servers, scripts, backends: deployment.backends };
  return 'counters' in deployment ? { ...target, counters: deployment.counters } : target;
}

/**
 * An anchor's target: one bare server, named `name`, loaded with the service's request bytes, its `key`
 * included (the anchor ignores it), and no backends.
 */
export function anchorTargetOf(dir: string, name: string, server: Server, key: string): Target {
  return targetOf(dir, { name, servers: [server], key, backends: false });
}

export type Run = { script: 'get' | 'create'; headers?: string[] };

function wrkRun(settings: Settings, target: Target, run: Run, seconds: number) {
  return {
    url: target.url,
    script: target.scripts[run.script],
    threads: target.scripts.threads,
    seconds,
    connections: settings.connections,
    ...(run.headers === undefined ? {} : { headers: run.headers }),
    watch: { servers: target.servers.map((server) => server.child.pid ?? 0), backends: target.backends },
  };
}

/** A run whose figures are dropped: it lets the servers' JIT and connection pools warm up. */
export async function warmUp(settings: Settings, target: Target, run: Run): Promise<void> {
  await runWrk(wrkRun(settings, target, run, settings.warmupSeconds));
}

export async function measureOnce(settings: Settings, target: Target, run: Run): Promise<Measured> {
  const before = target.counters?.();
  const result = await runWrk(wrkRun(settings, target, run, settings.seconds));
  if (target.counters === undefined || before === undefined) return result;
  const after = target.counters();
  const per = (count: (counters: SharedStateCounters) => number) =>
    (count(after) - count(before)) / Math.max(result.requests, 1);
  return {
    ...result,
    perRequest: { redisCalls: per((c) => c.redisCalls), writeTransactions: per((c) => c.writeTransactions) },
  };
}

/** A measured run in which every request was answered 2xx or 3xx; otherwise the bench stops, naming `name`. */
export async function measureAnswered(
  settings: Settings,
  target: Target,
  run: Run,
  name: string,
): Promise<Measured> {
  const result = await measureOnce(settings, target, run);
  if (result.non2xx3xx > 0 || result.socketErrors > 0) {
    throw new Error(`${name}: ${result.non2xx3xx} failed answers, ${result.socketErrors} socket errors`);
  }
  return result;
}

export async function measure(settings: Settings, target: Target, run: Run): Promise<Measured> {
  await warmUp(settings, target, run);
  return measureOnce(settings, target, run);
}
