import { type CopyReport, copyDatabase, type StorageConfig } from '../storage/index.js';
import { type OptionSpec, parseOptions, UsageError } from './args.js';
import { jsonLine } from './output.js';

export const COPY_USAGE = `Usage: petstore copy --from <DATABASE_URL> --to <DATABASE_URL> [--json]

Copies everything of one Pet Store database into another: API keys (hashes, plans, limits, scopes, expiry,
rotation links), admin tokens and console sessions, categories, pets and orders with their ids, idempotency
records, domains with their state, usage and the audit log. Either side may be sqlite:/path/file.db or
postgres://user@host/db. Stop the servers first.

The target is created and migrated if needed and must hold no data (a new SQLite file is readable by this
user only, in a directory that must exist); the source must be at this release's schema (run 'petstore
migrate' on it first). A SQLite source or target must hold exactly the tables, columns, indexes and
triggers this release's migrations make, and no view: an object added, changed or missing is named in the
refusal, before anything is written. Progress goes to stderr. The copy is one transaction on the target,
committed only after every table's row count and SHA-256 checksum match the source's: a copy that fails
leaves the target empty. Generated ids continue above the copied ones.`;

/** The options of `petstore copy`. */
export const COPY_OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  json: { type: 'boolean' },
} as const satisfies OptionSpec;

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
`;
}
