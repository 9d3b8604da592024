import type { ComponentChildren } from 'preact';
import type { LoggedRequest } from '../../src/contract/requests.js';
import { formatDuration } from '../format.js';
import { Badge, type Tone } from './badge.js';
import { BreakableText } from './breakable-text.js';
import { CardTable, type Column } from './card-table.js';
import { CopyButton } from './copy-button.js';
import { Time } from './time.js';

/**
 * The longest request id kept on one line where the table has room: a UUID's, which clients commonly send. A
 * longer one (a client may send 128 characters) breaks after a `/` or a `-`, as every id does on a phone.
 */
const WHOLE_ID = 36;

/** A status's tone by its class: the number and the error code say it; the colour repeats it. */
function toneOf(status: number): Tone {
  if (status >= 500) return 'bad';
  if (status >= 400) return 'warn';
  if (status >= 300) return 'info';
  return 'good';
}

/** A logged request's status and error code, such as `404 not_found`. */
export function RequestStatus({ request }: { request: Pick<LoggedRequest, 'status' | 'errorCode'> }) {
  return (
    <Badge tone={toneOf(request.status)}>
      {request.status}
      {request.errorCode ? ` ${request.errorCode}` : ''}
    </Badge>
  );
}

/**
 * Logged requests, newest first; on a phone each is a card. The console's rows lead to their detail and say
 * who asked (`detail`, `caller`); a key holder's are all their own, shown where they are. Every request id
 * can be copied, to quote it. Paths and ids break only after a `/` or a `-`: a cell that could break anywhere
 * has no width of its own, and the table squeezed them letter by letter beside a wide column. An error's
 * message goes with its request, so that the Status column is as wide as a status.
 */
export function RequestTable<R extends LoggedRequest>(props: {
  rows: R[];
  caption: string;
  detail?: (row: R) => string;
  caller?: (row: R) => ComponentChildren;
}) {
  const { rows, caption, detail, caller } = props;
  const callerColumn: Column<R>[] = caller
    ? [{ header: 'Caller', class: 'wrap', cell: (row) => caller(row) }]
    : [];
  return (
    <CardTable
      caption={caption}
      class="wide"
      rows={rows}
      rowKey={(row) => `${row.at} ${row.requestId}`}
      rowData={(row) => ({ 'data-request-id': row.requestId })}
      name={{
        header: 'Request',
        class: 'request',
        cell: (row) => {
          const request = (
            <code>
              {row.method} <BreakableText text={row.path} />
            </code>
          );
          return (
            <>
              {detail ? <a href={detail(row)}>{request}</a> : request}
              {row.errorMessage && <div class="request-error">{row.errorMessage}</div>}
            </>
          );
        },
      }}
      columns={[
        { header: 'Status', class: 'fit', cell: (row) => <RequestStatus request={row} /> },
        ...callerColumn,
        { header: 'When', cell: (row) => <Time iso={row.at} precise /> },
        {
          header: 'Duration',
          class: 'number nowrap',
          cell: (row) => formatDuration(row.durationMs),
        },
        {
          header: 'Request id',
          class: 'wrap',
          cell: (row) => (
            <>
              <code class={row.requestId.length <= WHOLE_ID ? 'nowrap' : undefined}>
                <BreakableText text={row.requestId} />
              </code>{' '}
              <CopyButton value={row.requestId} what={`request id ${row.requestId}`} />
            </>
          ),
        },
      ]}
    />
  );
}
