import fs from 'node:fs';
import path from 'node:path';
import { type CpuUse, LOAD_CPU, type Watch, watchCpu } from './cpu.js';
import { runToCompletion, spawnPinned } from './processes.js';

/** Characters that can stand in a Lua string literal as they are: the key is checked before it is written. */
const LUA_SAFE = /^[\w.-]+$/;

/**
 * Lua shared by every run. `setup` binds wrk's threads to the servers in turn (`thread.addr`), so one wrk
 * spreads its connections evenly over two instances and its one latency histogram gives exact percentiles
 * of the whole load; `done` prints the figures as one JSON line, so the bench reads numbers instead of
 * wrk's human-readable units. Status counts (the create script keeps them) are summed here over the
 * threads, since each wrk thread has a Lua state of its own.
 */
function commonLua(key: string, addresses: string[]): string {
  return `
wrk.headers['Authorization'] = 'Bearer ${key}'

local addresses = {${addresses.map((address) => `'${address}'`).join(', ')}}
local threads = {}
function setup(thread)
  table.insert(threads, thread)
  local host, port = addresses[(#threads - 1) % #addresses + 1]:match('^(.+):(%d+)$')
  thread.addr = wrk.lookup(host, port)[1]
end

function done(summary, latency, requests)
  local counts = {}
  for _, thread in ipairs(threads) do
    for status, n in pairs(thread:get('statuses') or {}) do
      counts[status] = (counts[status] or 0) + n
    end
  end
  local statuses = {}
  for status, n in pairs(counts) do
    table.insert(statuses, string.format('"%d":%d', status, n))
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%.0f,"durationUs":%.0f,"bytes":%.0f,"p50Us":%.0f,"p99Us":%.0f,' ..
    '"errors":{"status":%.0f,"connect":%.0f,"read":%.0f,"write":%.0f,"timeout":%.0f},"statuses":{%s}}\\n',
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(99),
    e.status, e.connect, e.read, e.write, e.timeout, table.concat(statuses, ',')))
end
`;
}

/**
 * POST /v1/categories with a small JSON body. Every status is counted, because wrk itself reports only how
 * many answers were not 2xx or 3xx, and every answer here must be a 201.
 */
const CREATE_LUA = `
wrk.method = 'POST'
wrk.body = '{"name":"Bench category","description":"Created by the create benchmark"}'
wrk.headers['Content-Type'] = 'application/json'

statuses = {}
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end
`;

export interface WrkScripts {
  get: string;
  create: string;
  /** wrk threads: one per server, so that each server gets an equal share of the connections. */
  threads: number;
}

/**
 * Writes the Lua scripts of one deployment into the bench's temp directory, which is removed on exit.
 * Readable by the owner only, since they hold the deployment's key.
 */
export function writeScripts(dir: string, name: string, target: { key: string; urls: string[] }): WrkScripts {
  if (!LUA_SAFE.test(target.key)) throw new Error('the CLI printed a key with unexpected characters');
  const common = commonLua(
    target.key,
    target.urls.map((url) => new URL(url).host),
  );
  const scripts = {
    get: path.join(dir, `${name}-get.lua`),
    create: path.join(dir, `${name}-create.lua`),
    threads: target.urls.length,
  };
  fs.writeFileSync(scripts.get, common, { mode: 0o600 });
  fs.writeFileSync(scripts.create, `${CREATE_LUA}${common}`, { mode: 0o600 });
  return scripts;
}

export interface WrkResult {
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  bytesPerResponse: number;
  /** Answers that were not 2xx or 3xx, as wrk counts them. */
  non2xx3xx: number;
  socketErrors: number;
  /** Answers by status; filled only by scripts that count them (the create script). */
  statuses: Map<number, number>;
  /** Where the CPU time of the run went. */
  cpu: CpuUse;
}

interface WrkJson {
  requests: number;
  durationUs: number;
  bytes: number;
  p50Us: number;
  p99Us: number;
  errors: { status: number; connect: number; read: number; write: number; timeout: number };
  statuses: Record<string, number>;
}

export interface WrkRun {
  /** The first server's URL: wrk takes its path and Host header from it; the script sets the addresses. */
  url: string;
  script: string;
  threads: number;
  seconds: number;
  connections: number;
  headers?: string[];
  /** What the run loads, whose CPU time is measured. */
  watch: Watch;
}

/**
 * One wrk run on the load CPU: one thread per server (the load CPU is a single core, so no more than the
 * spread needs), keep-alive (wrk's default), no pipelining, `--latency` for the percentile distribution.
 */
export async function runWrk(run: WrkRun): Promise<WrkResult> {
  const args = [
    `-t${run.threads}`,
    `-c${run.connections}`,
    `-d${run.seconds}s`,
    '--latency',
    '-s',
    run.script,
  ];
  for (const header of run.headers ?? []) args.push('-H', header);
  args.push(run.url);

  const cpuUse = watchCpu(run.watch);
  const { code, stdout, stderr } = await runToCompletion(spawnPinned(LOAD_CPU, 'wrk', args));
  const cpu = cpuUse();
  const line = stdout.split('\n').find((candidate) => candidate.startsWith('BENCH_JSON '));
  if (code !== 0 || line === undefined) {
    throw new Error(`wrk failed (exit code ${code}):\n${stdout}\n${stderr}`);
  }
  return toResult(JSON.parse(line.slice('BENCH_JSON '.length)) as WrkJson, cpu);
}

function toResult(json: WrkJson, cpu: CpuUse): WrkResult {
  const seconds = json.durationUs / 1e6;
  const { status, ...socket } = json.errors;
  return {
    requests: json.requests,
    seconds,
    rps: json.requests / seconds,
    p50Ms: json.p50Us / 1000,
    p99Ms: json.p99Us / 1000,
    bytesPerResponse: json.requests > 0 ? json.bytes / json.requests : 0,
    non2xx3xx: status,
    socketErrors: Object.values(socket).reduce((sum, n) => sum + n, 0),
    statuses: new Map(Object.entries(json.statuses).map(([code, n]) => [Number(code), n])),
    cpu,
  };
}
