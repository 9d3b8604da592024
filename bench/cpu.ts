import fs from 'node:fs';

/** The CPU the servers run on and the CPU wrk runs on (BENCHMARKS.md: pin both, on different CPUs). */
export const SERVER_CPU = 0;
export const LOAD_CPU = 1;

/** Above this share of either CPU taken by other processes, a run is counted as disturbed. */
export const FOREIGN_LIMIT = 0.1;

/** Where the CPU time of one run went, as shares (0 to 1) of its wall time. */
export interface CpuUse {
  /** The server process, on the server CPU. */
  server: number;
  /** wrk, on the load CPU. */
  load: number;
  /** Processes that are not ours, on whichever CPU they took most: the machine may be shared. */
  foreign: number;
  /** CPU seconds the server process used: per request, a cost that other processes barely change. */
  serverSeconds: number;
}

/** Clock ticks per second of /proc (USER_HZ), which Linux fixes at 100 for user space. */
const TICKS_PER_SECOND = 100;

interface Snapshot {
  /** Per CPU: ticks spent running tasks (user, nice, system), and all ticks. */
  cpus: Map<string, { task: number; total: number }>;
  /** utime + stime of the server process. */
  server: number;
  /** cutime + cstime of this process: the time of children it has reaped, which is how wrk's time shows. */
  reaped: number;
}

/**
 * Per-CPU ticks from /proc/stat (user nice system idle iowait irq softirq steal). Interrupt time is left
 * out of the task share because Linux does not charge it to the process it ran in either.
 */
function readCpus(): Snapshot['cpus'] {
  const cpus: Snapshot['cpus'] = new Map();
  for (const line of fs.readFileSync('/proc/stat', 'utf8').split('\n')) {
    const [name, ...fields] = line.trim().split(/\s+/);
    if (name === undefined || !/^cpu\d+$/.test(name)) continue;
    const values = fields.slice(0, 8).map(Number);
    const total = values.reduce((sum, n) => sum + n, 0);
    cpus.set(name, { task: (values[0] ?? 0) + (values[1] ?? 0) + (values[2] ?? 0), total });
  }
  return cpus;
}

/** Fields 14 to 17 of /proc/PID/stat: utime, stime, cutime, cstime. The name in field 2 may hold spaces. */
function processTicks(pid: number | 'self'): { own: number; reaped: number } {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  return { own: (fields[11] ?? 0) + (fields[12] ?? 0), reaped: (fields[13] ?? 0) + (fields[14] ?? 0) };
}

function snapshot(serverPid: number): Snapshot {
  return { cpus: readCpus(), server: processTicks(serverPid).own, reaped: processTicks('self').reaped };
}

/** Starts watching a run; the returned function, called after wrk exited, says where the CPU time went. */
export function watchCpu(serverPid: number): () => CpuUse {
  const before = snapshot(serverPid);
  return () => {
    const after = snapshot(serverPid);
    const delta = (cpu: number) => {
      const start = before.cpus.get(`cpu${cpu}`);
      const end = after.cpus.get(`cpu${cpu}`);
      if (start === undefined || end === undefined || end.total === start.total) return { task: 0, total: 1 };
      return { task: end.task - start.task, total: end.total - start.total };
    };
    const serverCpu = delta(SERVER_CPU);
    const loadCpu = delta(LOAD_CPU);
    const server = after.server - before.server;
    const load = after.reaped - before.reaped;
    return {
      server: server / serverCpu.total,
      load: load / loadCpu.total,
      foreign: Math.max(
        0,
        (serverCpu.task - server) / serverCpu.total,
        (loadCpu.task - load) / loadCpu.total,
      ),
      serverSeconds: server / TICKS_PER_SECOND,
    };
  };
}

/** The busiest CPU's task share while the bench runs nothing: how much other processes load the machine. */
export async function backgroundLoad(ms: number): Promise<number> {
  const before = readCpus();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = readCpus();
  let busiest = 0;
  for (const [name, end] of after) {
    const start = before.get(name);
    if (start !== undefined && end.total > start.total) {
      busiest = Math.max(busiest, (end.task - start.task) / (end.total - start.total));
    }
  }
  return busiest;
}
