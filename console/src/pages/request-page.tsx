import { type ComponentChildren, Fragment } from 'preact';
import { CopyButton } from '../../../kit/components/copy-button.js';
import { RequestStatus } from '../../../kit/components/request-table.js';
import { LoadError, Loading } from '../../../kit/components/status.js';
import { ApiError } from '../../../kit/fetch-json.js';
import { formatDuration, formatInstant, formatNumber } from '../../../kit/format.js';
import { useServerData } from '../../../kit/hooks.js';
import { api } from '../api.js';
import { RequestCaller } from '../components/request-caller.js';
import { BASE, href, requestsHref } from '../router.js';
import { useTitle } from '../title.js';
import type { AdminLoggedRequest } from '../types.js';

const yesNo = (value: boolean) => (value ? 'Yes' : 'No');
const orNone = (value: ComponentChildren | null) => (value === null || value === '' ? 'None' : value);

/** Every field of a logged request, in words. */
function RequestFacts({ request }: { request: AdminLoggedRequest }) {
  const facts: [string, ComponentChildren][] = [
    [
      'Request id',
      <span class="copy" key="id">
        <code class="break">{request.requestId}</code>
        <CopyButton value={request.requestId} what="the request id" />
      </span>,
    ],
    ['When', <time dateTime={request.at}>{formatInstant(request.at)}</time>],
    ['Method', request.method],
    ['Path', <code class="break">{request.path}</code>],
    ['Route', request.route === null ? 'None (no such route)' : <code>{request.route}</code>],
    ['Status', <RequestStatus request={request} />],
    ['Error code', orNone(request.errorCode && <code>{request.errorCode}</code>)],
    ['Error message', orNone(request.errorMessage)],
    ['Caller', <RequestCaller request={request} />],
    ['Admin token', orNone(request.actor && <code>{request.actor}</code>)],
    ['Client address', orNone(request.client && <code>{request.client}</code>)],
    ['Duration', formatDuration(request.durationMs)],
    ['Bytes', formatNumber(request.bytes)],
    [
      'Rate limit left',
      request.rateLimitRemaining === null
        ? 'None'
        : `${formatNumber(request.rateLimitRemaining)} this minute`,
    ],
    ['Replayed', yesNo(request.replayed)],
    ['Deprecated operation', yesNo(request.deprecated)],
    ['Instance', <code>{request.instance}</code>],
    ['User agent', orNone(request.userAgent && <span class="break">{request.userAgent}</span>)],
  ];
  return (
    <dl class="facts">
      {facts.map(([label, value]) => (
        <Fragment key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

/** Where to go from a request: its key's page, requests, audit and usage. */
function KeyLinks({ keyId }: { keyId: string }) {
  return (
    <section aria-labelledby="key-links-heading">
      <h2 id="key-links-heading">Its key</h2>
      <ul class="links">
        <li>
          <a href={href('keys', keyId)}>The key {keyId}</a>
        </li>
        <li>
          <a href={requestsHref({ key: keyId })}>The key’s requests</a>
        </li>
        <li>
          <a href={`${BASE}/audit?target=${encodeURIComponent(keyId)}`}>The key’s audit</a>
        </li>
        <li>
          <a href={`${BASE}/usage?key=${encodeURIComponent(keyId)}`}>The key’s usage</a>
        </li>
      </ul>
    </section>
  );
}

/** One logged request: every field the request log keeps, and links to its key. */
export function RequestPage({ id }: { id: string }) {
  useTitle(`Request ${id}`);
  const request = useServerData(() => api.request(id), [id]);
  const breadcrumb = (
    <p class="breadcrumb">
      <a href={href('requests')}>Requests</a>
    </p>
  );
  if (request.error instanceof ApiError && request.error.status === 404)
    return (
      <>
        {breadcrumb}
        <h1 tabIndex={-1}>Not found</h1>
        <p class="break">
          No request <code>{id}</code> is in the request log. It may be older than the log keeps (7 days by
          default), or the id may be mistyped.
        </p>
      </>
    );
  if (request.error) return <LoadError error={request.error} />;
  if (!request.data) return <Loading what="the request" />;
  const shown = request.data;
  return (
    <>
      {breadcrumb}
      <div class="title-row">
        <h1 tabIndex={-1} class="break">
          <code>
            {shown.method} {shown.path}
          </code>
        </h1>
        <RequestStatus request={shown} />
      </div>
      <section aria-labelledby="request-heading">
        <h2 id="request-heading">Details</h2>
        <RequestFacts request={shown} />
      </section>
      {shown.keyId && <KeyLinks keyId={shown.keyId} />}
    </>
  );
}
