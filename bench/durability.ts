import fs from 'node:fs';
import path from 'node:path';

/**
 * Whether a SQLite file is in WAL mode, read from its header (bytes 18 and 19 are 2 in WAL mode). WAL is
 * the only durability setting stored in the file; `synchronous=FULL` is per connection, and the service
 * reads it back at start and refuses to run without it.
 */
export function isWalFile(file: string): boolean {
  const header = Buffer.alloc(20);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, header, 0, header.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  return header[18] === 2 && header[19] === 2;
}

/**
 * A reader of the cache-flush count of the disk holding `dir`, from /sys/dev/block/MAJOR:MINOR/stat. Every
 * durable COMMIT fsyncs the WAL, which reaches the disk as a flush; creates per flush is the mean size of a
 * group commit. Undefined when the directory is not on a block device (tmpfs: fsync is free there, and the
 * create figures would not be durable ones).
 */
export function diskFlushCounter(dir: string): (() => number) | undefined {
  const dev = fs.statSync(dir).dev;
  // Linux encodes the device number as in glibc's gnu_dev_major and gnu_dev_minor.
  const major = ((dev >>> 8) & 0xfff) | (Math.floor(dev / 2 ** 32) & ~0xfff);
  const minor = (dev & 0xff) | ((dev >>> 12) & ~0xff);
  let device = `/sys/dev/block/${major}:${minor}`;
  if (!fs.existsSync(`${device}/stat`)) return undefined;
  // Flushes are counted on the whole disk, not on its partitions.
  if (fs.existsSync(`${device}/partition`)) device = path.dirname(fs.realpathSync(device));
  const statFile = `${device}/stat`;
  const read = () => Number(fs.readFileSync(statFile, 'utf8').trim().split(/\s+/)[15]);
  return Number.isFinite(read()) ? read : undefined;
}
