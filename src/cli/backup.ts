import type { Config } from '../config/index.js';
import { BackupError, backupSqlite, restoreSqlite, type SqliteCopyReport } from '../storage/index.js';
import { parseOptions, UsageError } from './args.js';
import { BACKUP_OPTIONS, type Command, RESTORE_OPTIONS } from './commands.js';
import { jsonLine, printable } from './output.js';

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
export const backupCommand: Command = async (args, config, out) => {
  const { file, json } = fileArgument(args, 'backup');
  const done = await backupSqlite(sqliteStorage(config, 'backup').file, file);
  const line = `Backed up ${done.source} to ${done.file} (${done.bytes} bytes, schema version ${done.schemaVersion}, integrity ok); the request log stays out of backups (docs/request-log.md)`;
  report(out, json, line, done);
  return 0;
};

/** `petstore restore <file>`: returns the exit code; refusals are thrown as one-line errors. */
export const restoreCommand: Command = (args, config, out) => {
  const { file, json } = fileArgument(args, 'restore');
  const database = sqliteStorage(config, 'restore');
  const done = restoreSqlite(file, database.file, database.dataDir);
  const line = `Restored ${done.source} to ${done.file} (${done.bytes} bytes, schema version ${done.schemaVersion}): start the service`;
  report(out, json, line, done);
  return 0;
};
