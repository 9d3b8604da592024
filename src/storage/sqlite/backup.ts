import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { API_VERSION } from '../../contract/index.js';
import { checkServable, SCHEMA_VERSION, type SchemaState, SchemaTooNewError } from '../schema.js';
import { type Database, Sqlite } from './driver.js';
import { createPrivateDir, createPrivateFile, isDirectory, PRIVATE_FILE, samePlace } from './files.js';
import { readSchema } from './migrations.js';
import { describeDifferences, schemaDifferences } from './schema-check.js';

/** A backup or restore refused or failed, in one line that names what to fix; nothing was left half-written. */
export class BackupError extends Error {
  override name = 'BackupError';
}

/** What a finished backup or restore wrote. */
export interface SqliteCopyReport {
  /** The database that was read (the live one for a backup, the backup file for a restore), absolute. */
  source: string;
  /** The file written, absolute. */
  file: string;
  bytes: number;
  /** The newest migration the copy records. */
  schemaVersion: number;
}

/** The first 16 bytes of every SQLite 3 database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** A name beside `target`, so the final rename stays on one file system and is atomic. */
function tempBeside(target: string, purpose: string): string {
  return path.join(
    path.dirname(target),
    `.${path.basename(target)}.${purpose}-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
}

/** Removes a database file and whatever SQLite may have left beside it. */
function removeDatabaseFiles(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(`${file}${suffix}`, { force: true });
}

/** fsync of a file or directory, so a rename that follows (or just made) survives a power cut. */
function fsyncPath(where: string): void {
  const fd = fs.openSync(where, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** A failure to write the copy, in words that say what to fix; other errors pass unchanged. */
function writeFailure(error: unknown, dir: string): unknown {
  const code = (error as { code?: string }).code;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') {
    return new BackupError(
      `no room for the copy in ${dir} (the disk is full): free space there, nothing was changed`,
    );
  }
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'SQLITE_CANTOPEN') {
    return new BackupError(`cannot write in ${dir} (${code}): use a directory this user can write to`);
  }
  return error;
}

function isSqliteFile(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const header = Buffer.alloc(SQLITE_HEADER.length);
    return fs.readSync(fd, header, 0, header.length, 0) === header.length && header.equals(SQLITE_HEADER);
  } finally {
    fs.closeSync(fd);
  }
}

function hasSchemaTable(db: Database): boolean {
  return (
    db
      .prepare<[], number>("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
      .pluck()
      .get() !== undefined
  );
}

/**
 * Checks a copy of ours that nothing else has open: `PRAGMA integrity_check` says ok and it has our schema.
 * Returns its schema, and with `compare`, how its schema objects differ from those this release's migrations
 * make at its version (schema-check.ts). Closing it checkpoints and removes its -wal and -shm.
 * `what` names the file in the messages (the user's backup, not our temporary copy of it).
 */
function checkCopy(
  file: string,
  what: string,
  compare = false,
): { schema: SchemaState; differences: string[] } {
  let db: Database | undefined;
  try {
    db = new Sqlite(file, { fileMustExist: true });
    const problems = db.pragma('integrity_check', { simple: false }) as { integrity_check: string }[];
    const first = problems[0]?.integrity_check;
    if (problems.length !== 1 || first !== 'ok') {
      throw new BackupError(
        `${what} fails SQLite's integrity check (${first ?? 'no answer'}): it is damaged`,
      );
    }
    if (!hasSchemaTable(db)) {
      throw new BackupError(
        `${what} is a SQLite database but not a Pet Store one (no schema_migrations table)`,
      );
    }
    const schema = readSchema(db);
    if (schema.version === 0) throw new BackupError(`${what} records no schema version`);
    return { schema, differences: compare ? schemaDifferences(db, schema.version) : [] };
  } catch (error) {
    if (error instanceof BackupError) throw error;
    // SQLITE_CORRUPT, SQLITE_NOTADB and the like: the file is not a database we can read.
    throw new BackupError(`${what} is damaged: SQLite says "${(error as Error).message}"`);
  } finally {
    db?.close();
  }
}

/**
 * Copies `from` to a new file `to` created 0600 (fs.copyFileSync would give it the mode of `from`, which
 * may be anyone's to read).
 */
function copyPrivately(from: string, to: string): void {
  const input = fs.openSync(from, 'r');
  try {
    const output = fs.openSync(to, 'wx', PRIVATE_FILE);
    try {
      const buffer = Buffer.allocUnsafe(1 << 20);
      for (;;) {
        const read = fs.readSync(input, buffer, 0, buffer.length, null);
        if (read === 0) break;
        for (let written = 0; written < read; ) {
          written += fs.writeSync(output, buffer, written, read - written);
        }
      }
    } finally {
      fs.closeSync(output);
    }
  } finally {
    fs.closeSync(input);
  }
}

/**
 * `petstore backup`: a consistent copy of the live database at `source`, taken while servers write to it.
 *
 * SQLite's online backup copies the pages under one read transaction (WAL lets writers go on meanwhile), so
 * the copy is the database as of one commit, holding every commit made before the backup began. It is
 * taken in one step: a backup taken in chunks restarts whenever another process commits between two
 * chunks, so a steadily written database would never finish. The copy goes to a temporary name beside
 * `target`, created readable by this user only (it holds the key digests) before a byte is written, is
 * checked (integrity_check), fsynced, and linked to `target`, which fails if `target` appeared meanwhile:
 * nothing is ever overwritten, and a failed backup leaves no file.
 */
export async function backupSqlite(source: string, target: string): Promise<SqliteCopyReport> {
  const from = path.resolve(source);
  const to = path.resolve(target);
  if (fs.existsSync(to)) {
    throw new BackupError(`${to} already exists: choose a new file name (a backup never overwrites a file)`);
  }
  if (!fs.statSync(path.dirname(to), { throwIfNoEntry: false })?.isDirectory()) {
    throw new BackupError(`the directory ${path.dirname(to)} does not exist: create it first`);
  }
  if (!fs.existsSync(from))
    throw new BackupError(`no database at ${from}: set DATABASE_URL to your server's`);
  if (!isSqliteFile(from)) throw new BackupError(`${from} is not a SQLite database`);
  const temp = tempBeside(to, 'backup');
  const db = new Sqlite(from, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    if (!hasSchemaTable(db)) throw new BackupError(`${from} holds no Pet Store schema`);
    // Created 0600 first: SQLite writes the copy into it (an empty file is an empty database), and its
    // -journal, -wal and -shm take its mode.
    try {
      if (!createPrivateFile(temp)) throw new BackupError(`${temp} appeared meanwhile: run the backup again`);
      await db.backup(temp, { progress: () => 0x7fffffff });
    } catch (error) {
      throw writeFailure(error, path.dirname(to));
    }
    db.close();
    const schemaVersion = checkCopy(temp, `the copy of ${from}`).schema.version;
    fsyncPath(temp);
    try {
      fs.linkSync(temp, to);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new BackupError(`${to} appeared while the backup ran: choose a new file name`);
      }
      throw error;
    }
    fs.rmSync(temp);
    fsyncPath(path.dirname(to));
    return { source: from, file: to, bytes: fs.statSync(to).size, schemaVersion };
  } finally {
    if (db.open) db.close();
    removeDatabaseFiles(temp);
  }
}

/**
 * The pids that hold a lock on `file` other than this process, from Linux's /proc/locks (empty elsewhere):
 * only to name them in the refusal, never to decide it.
 */
function lockHolders(file: string): number[] {
  try {
    const { ino } = fs.statSync(file);
    const holders = new Set<number>();
    for (const line of fs.readFileSync('/proc/locks', 'utf8').split('\n')) {
      const fields = line.trim().split(/\s+/);
      const pid = Number(fields[4]);
      const inode = Number(fields[5]?.split(':')[2]);
      if (inode === ino && pid !== process.pid && Number.isInteger(pid)) holders.add(pid);
    }
    return [...holders];
  } catch {
    return [];
  }
}

/**
 * Refuses while any connection has the database at `target` open: a server, or another `petstore` command.
 *
 * Why SQLite's own lock and not a pid file: in WAL mode every connection holds a shared lock on the database
 * file for as long as it is open (SQLite relies on it to tell the last connection to close), so asking for
 * an exclusive lock, without waiting, fails exactly while something has it open. The kernel drops the lock
 * when its process dies, however it dies, so there is no stale state to clean after a crash; it holds across
 * PID namespaces (a server in a container on the same volume) where `kill(pid, 0)` would see no process,
 * and a reused pid cannot pass for a server. (A write probe such as `BEGIN EXCLUSIVE` would fail only while
 * another connection writes, not while it merely holds the file open.) Its limit is SQLite's own: file
 * locks on a network file system may not be honoured.
 *
 * The probe closes before the restore renames the new file in: a server that starts in between would open
 * whichever file the name points to when it opens. `restore` is for a stopped service.
 */
function refuseWhileHeld(target: string): void {
  let db: Database | undefined;
  try {
    db = new Sqlite(target, { fileMustExist: true });
    db.pragma('busy_timeout = 0');
    // In WAL mode, exclusive locking mode takes an exclusive lock on the database file at the first read.
    db.pragma('locking_mode = EXCLUSIVE');
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      const pids = lockHolders(target);
      const who = pids.length === 0 ? 'another process' : `process ${pids.join(', ')}`;
      throw new BackupError(
        `${target} is open in ${who} (a running server?): stop every server and command using it, then restore`,
      );
    }
    if (code === 'SQLITE_NOTADB') {
      throw new BackupError(
        `${target} is not a SQLite database: move it away or set DATABASE_URL to the database to replace`,
      );
    }
    throw error;
  } finally {
    db?.close();
  }
}

/**
 * `petstore restore`: replaces the database at `target` with the backup `backup`, for a stopped service.
 *
 * The backup is copied to a temporary name beside `target`, created 0600 (the backup itself is never
 * opened, so never changed), checked there (a SQLite file, integrity_check, our schema at a version this
 * release serves, and exactly the schema objects this release's migrations make: schema-check.ts), fsynced,
 * and renamed over `target` once nothing holds it, after the old -wal and -shm are removed: a stale -wal
 * would otherwise be replayed into the restored file. The restored database is this user's only (0600), as
 * every database the service creates. A missing directory of `target` is refused, unless it is the data
 * directory `dataDir`, which is created 0700. Any refusal leaves `target` as it was.
 */
export function restoreSqlite(backup: string, target: string, dataDir?: string): SqliteCopyReport {
  const from = path.resolve(backup);
  const to = path.resolve(target);
  const stat = fs.statSync(from, { throwIfNoEntry: false });
  if (stat === undefined)
    throw new BackupError(`no file at ${from}: name a file that 'petstore backup' made`);
  if (!stat.isFile()) throw new BackupError(`${from} is not a file: name a file that 'petstore backup' made`);
  if (!isSqliteFile(from)) {
    throw new BackupError(`${from} is not a SQLite database: name a file that 'petstore backup' made`);
  }
  const dir = path.dirname(to);
  if (!isDirectory(dir)) {
    if (dataDir === undefined || !samePlace(dir, dataDir)) {
      throw new BackupError(
        `the directory ${dir} of DATABASE_URL does not exist: check DATABASE_URL, or create the directory first`,
      );
    }
    createPrivateDir(dir);
  }
  const temp = tempBeside(to, 'restore');
  try {
    try {
      copyPrivately(from, temp);
    } catch (error) {
      throw writeFailure(error, dir);
    }
    const { schema, differences } = checkCopy(temp, from, true);
    // The rule `serve` applies (the migration policy): a newer schema is restored only if this release serves it.
    try {
      checkServable(schema, from);
    } catch (error) {
      if (!(error instanceof SchemaTooNewError)) throw error;
      throw new BackupError(
        `${from} has schema version ${schema.version}, which release ${schema.oldestRelease} and later serve; this is release ${API_VERSION} (schema ${SCHEMA_VERSION}): restore it with release ${schema.oldestRelease} or later`,
      );
    }
    if (differences.length > 0) {
      throw new BackupError(
        `${from} does not have the schema this release's migrations make at version ${schema.version} (${describeDifferences(differences)}): nothing was restored; restore a file as 'petstore backup' made it`,
      );
    }
    fsyncPath(temp);
    if (fs.existsSync(to)) refuseWhileHeld(to);
    for (const suffix of ['-wal', '-shm', '-journal']) fs.rmSync(`${to}${suffix}`, { force: true });
    fs.renameSync(temp, to);
    fsyncPath(dir);
    return { source: from, file: to, bytes: fs.statSync(to).size, schemaVersion: schema.version };
  } finally {
    removeDatabaseFiles(temp);
  }
}
