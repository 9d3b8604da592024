import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { FastifyReply } from 'fastify';

/** The formats of a list exported whole (`format=` on an operation marked `exported`). */
export type DownloadFormat = 'ndjson' | 'csv';

/**
 * Streams rows as NDJSON or CSV (csv-stringify quotes what needs it, RFC 4180; an object cell is written as
 * its JSON), as a download named `<name>-<time of the export>.<format>`. The rows are read as the client
 * takes them, so memory stays flat however many there are.
 *
 * A CSV cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`: a
 * spreadsheet runs such a cell as a formula (`=HYPERLINK(…)`, `-2+3+cmd|…`), and strangers write some cells
 * (a `User-Agent`, a refused subject's name). OWASP's "CSV injection" advice; numbers stay as they are.
 */
export function sendDownload<T extends object>(
  reply: FastifyReply,
  rows: AsyncIterable<T>,
  options: { format: DownloadFormat; columns: readonly (keyof T & string)[]; name: string; now: number },
): FastifyReply {
  const { format, columns, name, now } = options;
  const stream = Readable.from(rows);
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  const body =
    format === 'ndjson'
      ? stream.map((row: T) => `${JSON.stringify(row)}\n`)
      : stream.pipe(
          stringify({
            header: true,
            columns: [...columns],
            escape_formulas: true,
            cast: { boolean: (value) => String(value), object: (value) => JSON.stringify(value) },
          }),
        );
  return reply
    .type(format === 'ndjson' ? 'application/x-ndjson' : 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}-${stamp}.${format}"`)
    .send(body);
}
