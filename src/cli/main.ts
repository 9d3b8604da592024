#!/usr/bin/env -S node --max-semi-space-size=32
// The flag: on Node 20, a server whose young generation stays at V8's default size can settle into a state
// where scavenges copy most of each turn's objects: about 1.7x the CPU per request on the category list, in
// 4 of 6 fresh processes here, against none of 5 with 32 MiB semi-spaces (docs/durability-and-speed.md).
import { createInterface } from 'node:readline/promises';
import { ConfigError, loadConfig, packageVersion } from '../config/index.js';
import { UsageError, wantsHelp } from './args.js';
import { type Command, commandNamed } from './commands.js';

const USAGE = `Usage: petstore <command> [--help]

Commands:
  serve        Start the HTTP API (the default)
  migrate      Create or update the database's schema, then exit
  keys         Manage API keys: create, list, show, rotate, revoke, unban
  admin-tokens Manage the tokens of the admin API: create, list, revoke
  audit        List the changes made to keys and admin tokens
  requests     Search the request log, or follow it as requests land
  domains      Add, check, show and remove custom domains
  webhooks     Manage webhook endpoints: add, test, rotate secrets, see and replay deliveries
  config       Print every setting in effect and where it comes from
  copy         Copy a database into an empty one, SQLite or PostgreSQL
  backup       Copy the SQLite database while it serves; restore puts a copy back
  restore      Replace the SQLite database with a backup (the service stopped)
  help         Show this message, or a command's: petstore help keys
  --version    Print the version

Run 'petstore <command> --help' for a command's usage.
`;

/**
 * A reader that goes away before the end (`petstore config | head -1`) closes the pipe, and the next write
 * fails with EPIPE: the command stops there, quietly, as Unix tools do, where Node would print an unhandled
 * error's stack. Not for `serve`, which drains its requests on a signal, never on a log reader's exit.
 */
function exitQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(process.exitCode ?? 0);
    });
  }
}

/**
 * A yes-or-no question for the person at the terminal (stdin and stderr both one), answered yes only by `y`
 * or `yes`; undefined without a terminal, where a command that must ask refuses instead.
 */
function terminalQuestion(): ((question: string) => Promise<boolean>) | undefined {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return undefined;
  return async (question) => {
    const prompt = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return /^y(es)?$/i.test((await prompt.question(question)).trim());
    } finally {
      prompt.close();
    }
  };
}

/**
 * Exit codes: 0 success, 1 failure at run time (including bad configuration), 2 wrong arguments. A command's
 * code is loaded when it runs: `--help`, a wrong argument and `config` need only the grammar (commands.ts),
 * not the server, the storage drivers and everything they load (about half a second of every command).
 */
async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  if (command !== 'serve') exitQuietlyOnClosedPipe();
  if (command === '--version' || command === '-v' || command === 'version') {
    process.stdout.write(`petstore ${packageVersion()}\n`);
    return 0;
  }
  if (command === 'help' || command === '--help' || command === '-h') {
    const topic = rest[0];
    const shown = topic === undefined ? undefined : commandNamed(topic);
    if (topic !== undefined && shown === undefined) throw new UsageError(`unknown command: ${topic}`);
    process.stdout.write(shown === undefined ? USAGE : `${shown.usage}\n`);
    return 0;
  }
  const usage = commandNamed(command)?.usage;
  if (usage === undefined) throw new UsageError(`unknown command: ${command}`);
  if (wantsHelp(rest)) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  /** Runs a command with the configuration and this process's streams. */
  const run = (toRun: Command) => toRun(rest, loadConfig(), process.stdout, process.stderr);
  switch (command) {
    case 'serve':
      if (rest.length > 0) throw new UsageError(`serve takes no arguments: ${rest.join(' ')}`, 'serve');
      await (await import('./serve.js')).serve(loadConfig());
      return 0;
    case 'keys':
      return (await import('./keys.js')).keysCommand(
        rest,
        loadConfig(),
        process.stdout,
        process.stderr,
        terminalQuestion(),
      );
    case 'admin-tokens':
      return run((await import('./admin.js')).adminTokensCommand);
    case 'audit':
      return run((await import('./admin.js')).auditCommand);
    case 'requests':
      return run((await import('./requests.js')).requestsCommand);
    case 'domains':
      return run((await import('./domains.js')).domainsCommand);
    case 'webhooks':
      return run((await import('./webhooks.js')).webhooksCommand);
    case 'backup':
      return run((await import('./backup.js')).backupCommand);
    case 'restore':
      return run((await import('./backup.js')).restoreCommand);
    case 'config':
      return (await import('./config.js')).configCommand(rest, process.stdout);
    case 'copy':
      return (await import('./copy.js')).copyCommand(
        rest,
        (url) => loadConfig({ DATABASE_URL: url }).storage,
        process.stdout,
        process.stderr,
      );
    case 'migrate':
      return run((await import('./migrate.js')).migrateCommand);
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      const help = error.command === '' ? 'petstore --help' : `petstore ${error.command} --help`;
      process.stderr.write(`petstore: ${error.message} (see '${help}')\n`);
      process.exitCode = 2;
      return;
    }
    const message = error instanceof ConfigError ? error.message : `petstore: ${(error as Error).message}`;
    process.stderr.write(`${message}\n`);
    process.exitCode = 1;
  },
);
