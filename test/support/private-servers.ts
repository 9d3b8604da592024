import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './process.js';

const run = promisify(execFile);
const PG_BIN = '/usr/lib/postgresql/15/bin';

/** The uid and gid of the `postgres` user, which initdb and the server must run as (they refuse root). */
function postgresUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined) throw new Error('there is no postgres user on this machine');
  return { uid: Number(uid), gid: Number(gid) };
}

/** A database server of the test's own, on a free port, which the test may kill. */
export interface PrivateServer {
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres`, or `redis://127.0.0.1:<port>`. */
  url: string;
  /**
   * SIGKILL: a crash, not a shutdown (PostgreSQL's postmaster and every process it started; Redis loses all
   * it held).
   */
  kill(): Promise<void>;
  /**
   * Starts it again on the same port (PostgreSQL runs crash recovery first; Redis comes back empty); resolves
   * once it accepts connections.
   */
  start(): Promise<void>;
  /** Stops it for good. */
  stop(): Promise<void>;
}

/**
 * initdb + pg_ctl from the installed PostgreSQL 15, as the `postgres` user, with fsync and synchronous commit
 * on (the service refuses anything less). Never the machine's shared server.
 */
export async function startPrivatePostgres(): Promise<PrivateServer> {
  const { uid, gid } = postgresUser();
  // A directory of its own under the system's temp directory, which the postgres user can reach.
  const home = mkdtempSync(path.join(tmpdir(), 'petstore-pg-'));
  chownSync(home, uid, gid);
  const data = path.join(home, 'data');
  const as = (command: string, args: string[]) => run('runuser', ['-u', 'postgres', '--', command, ...args]);
  await as(path.join(PG_BIN, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  writeFileSync(
    path.join(data, 'postgresql.auto.conf'),
    [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${home}'`,
      'max_connections = 60',
      'shared_buffers = 16MB',
      'fsync = on',
      'synchronous_commit = on',
    ].join('\n'),
  );
  chownSync(path.join(data, 'postgresql.auto.conf'), uid, gid);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const pgCtl = (...args: string[]) => as(path.join(PG_BIN, 'pg_ctl'), ['-D', data, ...args]);

  async function start(): Promise<void> {
    await pgCtl('-l', path.join(home, 'log'), '-w', '-t', '30', 'start');
  }
  /** The postmaster's pid (first line of postmaster.pid) and the pids of its children. */
  function processes(): number[] {
    const postmaster = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = readdirSync('/proc').flatMap((entry) => {
      if (!/^\d+$/.test(entry)) return [];
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return parent === postmaster ? [Number(entry)] : [];
      } catch {
        return [];
      }
    });
    return [postmaster, ...children];
  }
  async function kill(): Promise<void> {
    const pids = processes();
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    // Until every one of them is gone, the shared memory counts as in use and a start would be refused.
    const gone = (pid: number) => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    };
    while (!pids.every(gone)) await sleep(20);
  }

  await start();
  // A database of the test's own is not needed: the service makes its schema in `postgres`.
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.end();
  return {
    port,
    url,
    kill,
    start,
    async stop() {
      await pgCtl('-m', 'immediate', 'stop').catch(() => {});
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** A redis-server of the test's own on a free port, keeping nothing on disk. */
export async function startPrivateRedis(): Promise<PrivateServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  async function start(): Promise<void> {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const started = child;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      started.stdout?.on('data', (chunk) => {
        output += String(chunk);
        if (output.includes('Ready to accept connections')) resolve();
      });
      started.once('exit', (code) => reject(new Error(`redis-server exited (${code}):\n${output}`)));
    });
  }
  async function kill(): Promise<void> {
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, kill, start, stop: kill };
}
