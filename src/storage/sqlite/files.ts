import fs from 'node:fs';
import path from 'node:path';

/**
 * The files of the embedded database, made readable by this user only from the moment they exist: they hold
 * the digests of every key and admin token. A mode set by chmod after the fact leaves a window in which
 * another user can open the file and keep it open, so each file is created with its mode. SQLite creates a
 * database's -wal, -shm and -journal with the mode of the database file (on Unix), so a database created
 * 0600 gives 0600 siblings, whatever the umask.
 */

/** The mode of every database, backup, temporary and key file. */
export const PRIVATE_FILE = 0o600;

/** The mode of a data directory this service creates. */
export const PRIVATE_DIR = 0o700;

/**
 * Creates `file` empty, with mode 0600, and returns true; false if it exists already (another process made
 * it first), which is left as it is. An empty file is an empty SQLite database, so SQLite opens it as its own.
 */
export function createPrivateFile(file: string): boolean {
  try {
    fs.closeSync(fs.openSync(file, 'wx', PRIVATE_FILE));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Creates a data directory, and any parents it lacks, readable by this user only (0700). */
export function createPrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
}

/** A path with symbolic links resolved as far as it exists (the rest as given), to compare two places. */
function realPath(where: string): string {
  const absolute = path.resolve(where);
  try {
    return fs.realpathSync(absolute);
  } catch {
    const parent = path.dirname(absolute);
    return parent === absolute ? absolute : path.join(realPath(parent), path.basename(absolute));
  }
}

/** Whether `file` is in `dir` or below it. */
export function isInside(file: string, dir: string): boolean {
  const relative = path.relative(realPath(dir), realPath(file));
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/** Whether `a` and `b` name the same place. */
export function samePlace(a: string, b: string): boolean {
  return realPath(a) === realPath(b);
}

/** Whether `dir` exists and is a directory. */
export function isDirectory(dir: string): boolean {
  return fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true;
}
