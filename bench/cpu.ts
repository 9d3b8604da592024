import fs from 'node:fs';
import { runningChildren } from './processes.js';

/**
 * The CPU the servers run on and the CPU wrk runs on (BENCHMARKS.md: pin both, on different CPUs).
 * BENCH_SERVER_CPUS widens the servers' to a `taskset` list, `0,1`: a server's helper threads (the request
 * log's writer) may then run beside its event loop, on the CPU wrk uses too.
 */
export const SERVER_CPU = process.env.BENCH_SERVER_CPUS || '0';
export const LOAD_CPU = 1;

/** Above this share of a CPU taken by other processes, a run is counted as disturbed. */
export const FOREIGN_LIMIT = 0.1;

/**
 * The machine's PostgreSQL and Redis, by process name. They are shared services the bench does not start or
 * pin, so their time is found by name; it is the run's own only when the run uses them.
 */
const BACKEND_NAMES = new Set(['postgres', 'redis-server']);

/** What one run loads. */
export interface Watch {
  /** The server processes wrk loads; every other running child of the bench is an idle server. */
  servers: number[];
  /** Whether the servers use PostgreSQL and Redis, so that their time is the run's and not foreign. */
  backends: boolean;
}

/** Where the CPU time of one run went, as shares of one CPU over its wall time. */
export interface CpuUse {
  /** Each loaded server, on the server CPU: with two instances, how evenly wrk spread the load. */
  servers: number[];
  /** wrk, on the load CPU. */
  load: number;
  /** PostgreSQL and Redis, on whichever CPU they ran; 0 when the run does not use them. */
  backends: number;
  /** Processes that are not ours: the machine may be shared. */
  foreign: number;
  /** CPU seconds the loaded servers used: per request, a cost that other processes barely change. */
  serverSeconds: number;
  /** CPU seconds PostgreSQL and Redis used: what shared state costs beyond the servers' own time. */
  backendSeconds: number;
}

/** Clock ticks per second of /proc (USER_HZ), which Linux fixes at 100 for user space. */
const TICKS_PER_SECOND = 100;

type CpuTicks = { task: number; total: number };

interface Snapshot {
  /** Task ticks of all CPUs, and all ticks of one CPU. */
  cpus: CpuTicks;
  /** utime + stime of each loaded server. */
  servers: number[];
  /** utime + stime of the bench's other children, which are idle servers. */
  idle: number;
  /** cutime + cstime of this process: the time of children it has reaped, which is how wrk's time shows. */
  reaped: number;
  /** utime + stime + cutime + cstime of PostgreSQL's and Redis's processes. */
  backends: number;
}

/**
 * Per-CPU ticks from /proc/stat (user nice system idle iowait irq softirq steal). Interrupt time is left out
 * of the task ticks because Linux does not charge it to the process it ran in either.
 */
function readPerCpu(): Map<string, CpuTicks> {
  const cpus = new Map<string, CpuTicks>();
  for (const line of fs.readFileSync('/proc/stat', 'utf8').split('\n')) {
    const [name, ...fields] = line.trim().split(/\s+/);
    if (name === undefined || !/^cpu\d+$/.test(name)) continue;
    const values = fields.slice(0, 8).map(Number);
    const total = values.reduce((sum, n) => sum + n, 0);
    cpus.set(name, { task: (values[0] ?? 0) + (values[1] ?? 0) + (values[2] ?? 0), total });
  }
  return cpus;
}

/**
 * Task ticks summed over the CPUs, against the ticks of one CPU. Summed, because PostgreSQL and Redis run
 * unpinned on either CPU and idle servers may run anywhere; against one CPU, so shares read as before.
 */
function readCpus(): CpuTicks {
  const cpus = [...readPerCpu().values()];
  const task = cpus.reduce((sum, cpu) => sum + cpu.task, 0);
  const total = cpus.reduce((sum, cpu) => sum + cpu.total, 0) / Math.max(cpus.length, 1);
  return { task, total };
}

/**
 * Fields 2 (the name) and 14 to 17 of /proc/PID/stat: utime, stime, cutime, cstime. The name may hold
 * spaces, so the fields are counted from its closing parenthesis. Undefined if the process is gone.
 */
function processStat(pid: number | 'self'): { name: string; own: number; reaped: number } | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const close = stat.lastIndexOf(')');
  const fields = stat
    .slice(close + 2)
    .split(' ')
    .map(Number);
  return {
    name: stat.slice(stat.indexOf('(') + 1, close),
    own: (fields[11] ?? 0) + (fields[12] ?? 0),
    reaped: (fields[13] ?? 0) + (fields[14] ?? 0),
  };
}

const ownTicks = (pid: number) => processStat(pid)?.own ?? 0;

/**
 * PostgreSQL's and Redis's ticks. Reaped time is included: a backend that exits during a run hands its
 * time to the postmaster's reaped ticks, so nothing is lost when connections come and go.
 */
function backendTicks(): number {
  let ticks = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = processStat(Number(entry));
    if (stat !== undefined && BACKEND_NAMES.has(stat.name)) ticks += stat.own + stat.reaped;
  }
  return ticks;
}

function snapshot(watch: Watch): Snapshot {
  const idle = runningChildren().filter((pid) => !watch.servers.includes(pid));
  return {
    cpus: readCpus(),
    servers: watch.servers.map(ownTicks),
    idle: idle.reduce((sum, pid) => sum + ownTicks(pid), 0),
    reaped: processStat('self')?.reaped ?? 0,
    backends: backendTicks(),
  };
}

/** Starts watching a run; the returned function, called after wrk exited, says where the CPU time went. */
export function watchCpu(watch: Watch): () => CpuUse {
  const before = snapshot(watch);
  return () => {
    const after = snapshot(watch);
    const cpuTicks = Math.max(after.cpus.total - before.cpus.total, 1);
    const servers = after.servers.map((ticks, i) => ticks - (before.servers[i] ?? 0));
    const server = servers.reduce((sum, n) => sum + n, 0);
    const load = after.reaped - before.reaped;
    const backends = after.backends - before.backends;
    const ours = server + load + (after.idle - before.idle) + (watch.backends ? backends : 0);
    return {
      servers: servers.map((ticks) => ticks / cpuTicks),
      load: load / cpuTicks,
      backends: watch.backends ? backends / cpuTicks : 0,
      foreign: Math.max(0, after.cpus.task - before.cpus.task - ours) / cpuTicks,
      serverSeconds: server / TICKS_PER_SECOND,
      backendSeconds: watch.backends ? backends / TICKS_PER_SECOND : 0,
    };
  };
}

/** The busiest CPU's task share while the bench runs nothing: how much other processes load the machine. */
export async function backgroundLoad(ms: number): Promise<number> {
  const before = readPerCpu();
  await new Promise((resolve) => setTimeout(resolve, ms));
  let busiest = 0;
  for (const [name, end] of readPerCpu()) {
    const start = before.get(name);
    if (start !== undefined && end.total > start.total) {
      busiest = Math.max(busiest, (end.task - start.task) / (end.total - start.total));
    }
  }
  return busiest;
}
