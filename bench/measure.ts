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

export async function measure(settings: Settings, target: Target, run: Run): Promise<Measured> {
  await warmUp(settings, target, run);
  return measureOnce(settings, target, run);
}
