import { type CopyReport, copyDatabase, type StorageConfig } from '../storage/index.js';
import { parseOptions, UsageError } from './args.js';
import { COPY_OPTIONS } from './commands.js';
import { jsonLine } from './output.js';

/** `petstore copy`: returns the exit code. `storageOf` turns a URL into the storage it names. */
export async function copyCommand(
  args: string[],
  storageOf: (url: string) => StorageConfig,
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): Promise<number> {
  const { values, positionals } = parseOptions(args, COPY_OPTIONS, 'copy');
  if (positionals.length > 0)
    throw new UsageError(`copy takes no arguments: ${positionals.join(' ')}`, 'copy');
  if (values.from === undefined || values.to === undefined) {
    throw new UsageError('copy needs --from <DATABASE_URL> and --to <DATABASE_URL>', 'copy');
  }
  const from = storageOf(values.from);
  const to = storageOf(values.to);
  // A line per batch would flood a terminal: one per tenth of each table.
  let last = { table: '', tenth: -1 };
  const report = await copyDatabase({
    from,
    to,
    onProgress({ table, copied, total }) {
      const tenth = total === 0 ? 10 : Math.floor((copied * 10) / total);
      if (table === last.table && tenth === last.tenth) return;
      last = { table, tenth };
      err.write(`${table}: ${copied}/${total}\n`);
    },
  });
  if (values.json === true) out.write(jsonLine(report));
  else out.write(summary(report));
  return 0;
}

function summary(report: CopyReport): string {
  const width = Math.max(...report.tables.map((table) => table.table.length));
  const lines = report.tables.map(
    (table) =>
      `  ${table.table.padEnd(width)}  ${String(table.rows).padStart(9)} rows  sha256 ${table.checksum}`,
  );
  const sequences = report.sequences.map((sequence) => `${sequence.table} ${sequence.last + 1}`).join(', ');
  const seconds = report.ms / 1000;
  return `Copied ${report.from} to ${report.to}, verified (counts and checksums equal):
${lines.join('\n')}
Next ids: ${sequences}.
${report.rows} rows in ${seconds.toFixed(1)} s (${Math.round(report.rows / Math.max(seconds, 0.001))} rows/s).
The request log is not copied: each deployment keeps its own (docs/request-log.md).
`;
}
