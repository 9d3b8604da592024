/**
 * `npm run bench:profile -- FILE_OR_DIR...`: where a server's CPU went, from the `--cpu-prof` profiles that
 * `BENCH_CPU_PROFILE_DIR` makes `npm run bench` write (docs/durability-and-speed.md), one per thread (the request
 * log's SQLite writer is a thread of its own). For each: self time per function, as a share of the time the
 * thread was not idle; each function sorted into whose it is
 * (ours: the project's own `dist/src`; Fastify and its parts; other packages; Node's internals; V8's own
 * entries such as the garbage collector), a total per owner, and the largest of ours.
 *
 * Environment: BENCH_PROFILE_TOP (10), how many of ours to print.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runBench } from './processes.js';
import { positiveInteger } from './settings.js';

const log = (line: string) => process.stdout.write(`${line}\n`);

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

type Owner = 'ours' | 'fastify' | 'packages' | 'node' | 'v8' | 'idle';

const FASTIFY = /node_modules\/(fastify|@fastify|find-my-way|avvio|light-my-request|fast-json-stringify)\//;

function ownerOf(frame: CallFrame): Owner {
  const { url, functionName } = frame;
  if (functionName === '(idle)') return 'idle';
  if (url === '') return functionName.startsWith('(') ? 'v8' : 'node';
  if (url.startsWith('node:')) return 'node';
  if (FASTIFY.test(url)) return 'fastify';
  if (url.includes('/node_modules/')) return 'packages';
  if (url.includes('/dist/src/')) return 'ours';
  return 'packages';
}

/** A function's name and place in the build: `record (src/request-log/hook.js:42)`. */
function nameOf(frame: CallFrame): string {
  const file = frame.url.replace(/^file:\/\//, '').replace(/^.*\/dist\//, '');
  return `${frame.functionName || '(anonymous)'} (${file}:${frame.lineNumber + 1})`;
}

function profilesIn(targets: string[]): string[] {
  return targets.flatMap((target) =>
    fs.statSync(target).isDirectory()
      ? fs
          .readdirSync(target)
          .filter((name) => name.endsWith('.cpuprofile'))
          .map((name) => path.join(target, name))
      : [target],
  );
}

/** The thread a profile is of, from Node's file name `CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile`. */
function threadOf(file: string): string {
  const match = /^CPU\.\d+\.\d+\.(\d+)\.(\d+)\.\d+\.cpuprofile$/.exec(path.basename(file));
  if (match === null) return path.basename(file);
  return `process ${match[1]}, ${match[2] === '0' ? 'main thread' : `worker thread ${match[2]}`}`;
}

/** One profile's self times: by owner, and by function. */
function selfTimes(file: string) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byFunction = new Map<string, { owner: Owner; us: number }>();
  const byOwner = new Map<Owner, number>();
  profile.samples.forEach((id, index) => {
    const frame = nodes.get(id)?.callFrame;
    if (frame === undefined) return;
    const us = profile.timeDeltas[index] ?? 0;
    const owner = ownerOf(frame);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + us);
    const name = owner === 'ours' ? nameOf(frame) : `${owner}: ${frame.functionName}`;
    const entry = byFunction.get(name) ?? { owner, us: 0 };
    entry.us += us;
    byFunction.set(name, entry);
  });
  return { byOwner, byFunction };
}

async function main(): Promise<number> {
  const files = profilesIn(process.argv.slice(2));
  if (files.length === 0) throw new Error('name .cpuprofile files or a directory that holds them');
  const top = positiveInteger('BENCH_PROFILE_TOP', 10);
  for (const file of files) {
    const { byOwner, byFunction } = selfTimes(file);
    const active = [...byOwner].filter(([owner]) => owner !== 'idle').reduce((sum, [, us]) => sum + us, 0);
    const share = (us: number) => `${((us / active) * 100).toFixed(1).padStart(5)}%`;
    log(`${threadOf(file)}: ${(active / 1e6).toFixed(1)} s active (idle left out)`);
    const owners = [...byOwner].filter(([owner]) => owner !== 'idle').sort((a, b) => b[1] - a[1]);
    log(`  by owner: ${owners.map(([owner, us]) => `${owner} ${share(us).trim()}`).join(', ')}`);
    const ours = [...byFunction]
      .filter(([, entry]) => entry.owner === 'ours')
      .sort((a, b) => b[1].us - a[1].us)
      .slice(0, top);
    if (ours.length > 0) log(`  the ${ours.length} largest self times of ours:`);
    for (const [name, entry] of ours) log(`  ${share(entry.us)} ${name}`);
  }
  return 0;
}

runBench('bench:profile', main);
