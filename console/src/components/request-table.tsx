import type { ComponentChildren } from 'preact';
import type { LoggedRequest } from '../../../src/contract/requests.js';
import { formatDuration, formatInstant } from '../format.js';
import { href } from '../router.js';
import type { AdminLoggedRequest } from '../types.js';
import { Badge, type Tone } from './badge.js';
import { CopyButton } from './copy-button.js';

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

/** Who asked: the key as a link to its page, the admin token, or the client address of a caller without either. */
export function RequestCaller({ request }: { request: AdminLoggedRequest }) {
  if (request.keyId) return <a href={href('keys', request.keyId)}>{request.keyId}</a>;
  if (request.actor)
    return (
      <>
        Admin <code>{request.actor}</code>
      </>
    );
  return (
    <>
      No key <code class="muted">{request.client ?? ''}</code>
    </>
  );
}

/**
 * Logged requests, newest first; on a phone each is a card. The console's rows lead to their detail and say
 * who asked (`detail`, `caller`); a key holder's are all their own, shown where they are. Every request id
 * can be copied, to quote it.
 */
export function RequestTable<R extends LoggedRequest>(props: {
  rows: R[];
  caption: string;
  detail?: (row: R) => string;
  caller?: (row: R) => ComponentChildren;
}) {
  const { rows, caption, detail, caller } = props;
  return (
    <div class="table-scroll cards">
      <table class="wide">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Request</th>
            <th scope="col">Status</th>
            {caller && <th scope="col">Caller</th>}
            <th scope="col">When</th>
            <th scope="col">Duration</th>
            <th scope="col">Request id</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const request = (
              <code>
                {row.method} {row.path}
              </code>
            );
            return (
              <tr key={`${row.at} ${row.requestId}`} data-request-id={row.requestId}>
                <th scope="row" class="break">
                  {detail ? <a href={detail(row)}>{request}</a> : request}
                </th>
                <td data-label="Status">
                  <RequestStatus request={row} />
                  {row.errorMessage && <div class="muted">{row.errorMessage}</div>}
                </td>
                {caller && (
                  <td data-label="Caller" class="break">
                    {caller(row)}
                  </td>
                )}
                <td data-label="When" class="nowrap">
                  <time dateTime={row.at}>{formatInstant(row.at)}</time>
                </td>
                <td data-label="Duration" class="number">
                  {formatDuration(row.durationMs)}
                </td>
                <td data-label="Request id" class="break">
                  <code>{row.requestId}</code>{' '}
                  <CopyButton value={row.requestId} what={`request id ${row.requestId}`} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
