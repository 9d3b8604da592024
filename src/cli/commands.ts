import { OPERATOR_SETTINGS, settingsHelp } from '../config/index.js';
import { ADMIN_TOKENS_OPTIONS, ADMIN_TOKENS_USAGE, AUDIT_OPTIONS, AUDIT_USAGE } from './admin.js';
import type { OptionSpec } from './args.js';
import { BACKUP_OPTIONS, BACKUP_USAGE, RESTORE_OPTIONS, RESTORE_USAGE } from './backup.js';
import { CONFIG_OPTIONS, CONFIG_USAGE } from './config.js';
import { COPY_OPTIONS, COPY_USAGE } from './copy.js';
import { DOMAINS_OPTIONS, DOMAINS_USAGE } from './domains.js';
import { KEYS_OPTIONS, KEYS_USAGE } from './keys.js';
import { MIGRATE_OPTIONS, MIGRATE_USAGE } from './migrate.js';

// The CLI's grammar in one table, made of the very option specs the commands' parsers use, so that a test
// can hold the docs to it without a copy that could drift. Importing it runs nothing (main.ts does).

export const SERVE_USAGE = `Usage: petstore serve

Starts the HTTP API (the default command) and serves until SIGTERM or SIGINT, which drain it. With
DATABASE_URL unset the data is in petstore.db in the data directory, created on the first start (the
directory 0700, the file 0600) with one API key, shown once (on the terminal, or in first-api-key.txt
there; another database's first key goes to a file named after it, and an existing file is never
overwritten). A server creates a SQLite file only in the data directory: one named elsewhere must exist
('petstore migrate' creates it), and a directory that does not exist is refused. 'petstore config' prints
every setting in effect and where it comes from.

Reads:
${settingsHelp(OPERATOR_SETTINGS)}`;

/** serve takes no arguments at all: main.ts refuses any ("serve takes no arguments: …"). */
export const SERVE_OPTIONS = {} as const satisfies OptionSpec;

/** A command's usage text (its `--help`) and its options: either its own, or each action's. */
export type CommandGrammar =
  | { readonly usage: string; readonly options: OptionSpec }
  | { readonly usage: string; readonly actions: Readonly<Record<string, OptionSpec>> };

export type CommandName =
  | 'serve'
  | 'migrate'
  | 'keys'
  | 'admin-tokens'
  | 'audit'
  | 'config'
  | 'copy'
  | 'domains'
  | 'backup'
  | 'restore';

/** Every command of `petstore`, its usage text and its grammar. */
export const COMMANDS: Readonly<Record<CommandName, CommandGrammar>> = {
  serve: { usage: SERVE_USAGE, options: SERVE_OPTIONS },
  migrate: { usage: MIGRATE_USAGE, options: MIGRATE_OPTIONS },
  keys: { usage: KEYS_USAGE, actions: KEYS_OPTIONS },
  'admin-tokens': { usage: ADMIN_TOKENS_USAGE, actions: ADMIN_TOKENS_OPTIONS },
  audit: { usage: AUDIT_USAGE, actions: AUDIT_OPTIONS },
  config: { usage: CONFIG_USAGE, options: CONFIG_OPTIONS },
  copy: { usage: COPY_USAGE, options: COPY_OPTIONS },
  domains: { usage: DOMAINS_USAGE, actions: DOMAINS_OPTIONS },
  backup: { usage: BACKUP_USAGE, options: BACKUP_OPTIONS },
  restore: { usage: RESTORE_USAGE, options: RESTORE_OPTIONS },
};

/** The command of that name, if there is one (never a property of Object.prototype, such as `toString`). */
export function commandNamed(name: string): CommandGrammar | undefined {
  return Object.hasOwn(COMMANDS, name) ? COMMANDS[name as CommandName] : undefined;
}

/**
 * The options `petstore <command> [<action>]` takes, or undefined when there is no such command or action:
 * a command with actions needs one, a command without takes none.
 */
export function grammarOf(command: string, action?: string): OptionSpec | undefined {
  const grammar = commandNamed(command);
  if (grammar === undefined) return undefined;
  if ('options' in grammar) return action === undefined ? grammar.options : undefined;
  if (action === undefined || !Object.hasOwn(grammar.actions, action)) return undefined;
  return grammar.actions[action];
}
