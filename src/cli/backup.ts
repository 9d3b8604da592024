import { type Config, STORAGE_SETTINGS, settingsHelp } from '../config/index.js';
import { BackupError, backupSqlite, restoreSqlite, type SqliteCopyReport } from '../storage/index.js';
import { type OptionSpec, parseOptions, UsageError } from './args.js';
import { jsonLine, printable } from './output.js';

export const BACKUP_USAGE = `Usage: petstore backup <file> [--json]

Copies the SQLite database of DATABASE_URL to <file> while servers run and write: SQLite's online backup,
the database as of one moment, with every create acknowledged before the command started. The copy is
checked (PRAGMA integrity_check) before success is reported, readable by this user only from its first
byte (the temporary file too), and written under a temporary name beside <file> then linked into place: an
existing <file> is never overwritten, and a failed backup leaves nothing. Prints one line with the file,
its size and its schema version; --json one object.
PostgreSQL: use pg_dump (docs/upgrades-and-backups.md, "Backups").

Reads:
${settingsHelp(STORAGE_SETTINGS)}`;

export const RESTORE_USAGE = `Usage: petstore restore <file> [--json]

Replaces the SQLite database of DATABASE_URL with <file>, a backup made by 'petstore backup', for a stopped
service: refused while any server or command has the database open. <file> must pass SQLite's integrity
check and hold a Pet Store schema this release serves (the rule 'serve' applies), with exactly the tables,
columns, indexes and triggers this release's migrations make at its version, and no view (a newer schema
may add tables, columns and indexes only): an object added, changed or missing is named in the refusal.
It is copied beside the database (readable by this user only), fsynced and renamed over it, and the old
-wal and -shm are removed, so a refusal or a failure leaves the database as it was. The database's
directory must exist (the data directory is created). <file> itself is not changed.
PostgreSQL: use pg_restore (docs/upgrades-and-backups.md, "Backups").

Reads:
${settingsHelp(STORAGE_SETTINGS)}`;

/** The options of `petstore backup`. */
export const BACKUP_OPTIONS = { json: { type: 'boolean' } } as const satisfies OptionSpec;

/** The options of `petstore restore`: the same as backup's. */
export const RESTORE_OPTIONS = BACKUP_OPTIONS;

/** The command's one positional, the file. */
function fileArgument(args: string[], command: 'backup' | 'restore') {
  const options = command === 'backup' ? BACKUP_OPTIONS : RESTORE_OPTIONS;
  const { values, positionals } = parseOptions(args, options, command);
  const [file, ...extra] = positionals;
  if (file === undefined || file === '') throw new UsageError(`${command} needs a file`, command);
  if (extra.length > 0) throw new UsageError(`${command} takes one file: ${extra.join(' ')}`, command);
  return { file, json: values.json === true };
}

/** The SQLite database DATABASE_URL names; on PostgreSQL, the one-line pointer to its own tools. */
function sqliteStorage(config: Config, command: 'backup' | 'restore'): { file: string; dataDir: string } {
  if (config.storage.kind === 'sqlite') return config.storage;
  const tool = command === 'backup' ? 'pg_dump -Fc' : 'pg_restore --clean --if-exists';
  throw new BackupError(
    `${command} works on the SQLite file; DATABASE_URL names PostgreSQL: use ${tool} (docs/upgrades-and-backups.md, "Backups")`,
  );
}

function report(out: NodeJS.WritableStream, json: boolean, line: string, done: SqliteCopyReport): void {
  out.write(json ? jsonLine(done) : `${printable(line)}\n`);
}

/** `petstore backup <file>`: returns the exit code; refusals are thrown as one-line errors. */
export async function backupCommand(args: string[], config: Config, out: NodeJS.WritableStream) {
  const { file, json } = fileArgument(args, 'backup');
  const done = await backupSqlite(sqliteStorage(config, 'backup').file, file);
  const line = `Backed up ${done.source} to ${done.file} (${done.bytes} bytes, schema version ${done.schemaVersion}, integrity ok)`;
  report(out, json, line, done);
  return 0;
}

/** `petstore restore <file>`: returns the exit code; refusals are thrown as one-line errors. */
export function restoreCommand(args: string[], config: Config, out: NodeJS.WritableStream) {
  const { file, json } = fileArgument(args, 'restore');
  const database = sqliteStorage(config, 'restore');
  const done = restoreSqlite(file, database.file, database.dataDir);
  const line = `Restored ${done.source} to ${done.file} (${done.bytes} bytes, schema version ${done.schemaVersion}): start the service`;
  report(out, json, line, done);
  return 0;
}
