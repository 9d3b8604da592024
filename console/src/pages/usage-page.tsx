import { LoadError, Loading } from '../../../kit/components/status.js';
import { formatNumber, formatShare } from '../../../kit/format.js';
import { useServerData } from '../../../kit/hooks.js';
import { api } from '../api.js';
import { UsageCharts } from '../components/usage-charts.js';
import { href, location } from '../router.js';
import { useTitle } from '../title.js';
import type { KeyUsage } from '../types.js';

/** Above this share of its day window a key is close to being refused; the operator may raise its plan. */
const NEAR_LIMIT = 0.8;
/** How many of the most used keys are listed. */
const TOP = 10;

function KeyUsageTable({ rows, caption }: { rows: KeyUsage[]; caption: string }) {
  return (
    <div class="table-scroll cards">
      <table class="wide">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Plan</th>
            <th scope="col">Used today</th>
            <th scope="col">Day limit</th>
            <th scope="col">Share</th>
            <th scope="col">OK</th>
            <th scope="col">Client errors</th>
            <th scope="col">Rate limited</th>
            <th scope="col">Server errors</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.keyId}>
              <th scope="row">
                <a href={href('keys', row.keyId)} class="break">
                  {row.name}
                </a>{' '}
                <code class="muted">{row.keyId}</code>
              </th>
              <td data-label="Plan">{row.plan}</td>
              <td data-label="Used today" class="number">
                {formatNumber(row.used)}
              </td>
              <td data-label="Day limit" class="number">
                {formatNumber(row.perDay)}
              </td>
              <td data-label="Share" class="number">
                {formatShare(row.dayShare)}
              </td>
              <td data-label="OK" class="number">
                {formatNumber(row.success)}
              </td>
              <td data-label="Client errors" class="number">
                {formatNumber(row.clientErrors)}
              </td>
              <td data-label="Rate limited" class="number">
                {formatNumber(row.rateLimited)}
              </td>
              <td data-label="Server errors" class="number">
                {formatNumber(row.serverErrors)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Usage of all keys: charts by hour and by day, the most used keys today, and those near their limit. */
export function UsagePage() {
  const keyId = new URLSearchParams(location.value.search).get('key');
  return keyId ? <KeyUsagePage keyId={keyId} /> : <AllUsagePage />;
}

/** One key's charts, as its page has them, for a link that names a key (a request's "the key's usage"). */
function KeyUsagePage({ keyId }: { keyId: string }) {
  useTitle(`Usage of ${keyId}`);
  return (
    <>
      <p class="breadcrumb">
        <a href={href('usage')}>Usage of all keys</a>
      </p>
      <h1 tabIndex={-1} class="break">
        Usage of {keyId}
      </h1>
      <p class="muted">
        Every answer to <a href={href('keys', keyId)}>this key</a>, by outcome. Hours and days are UTC.
      </p>
      <UsageCharts keyId={keyId} />
    </>
  );
}

function AllUsagePage() {
  useTitle('Usage');
  // Every key, for those near their limit; the top of the list is the most used.
  const today = useServerData(() => api.usageByKey(1000), []);
  const top = today.data?.slice(0, TOP) ?? [];
  const near = today.data?.filter((row) => row.dayShare > NEAR_LIMIT) ?? [];
  return (
    <>
      <h1 tabIndex={-1}>Usage</h1>
      <p class="muted">Every answer to every key, by outcome. Hours and days are UTC.</p>
      <UsageCharts />
      <section aria-labelledby="near-heading">
        <h2 id="near-heading">Keys above {formatShare(NEAR_LIMIT)} of their day limit today</h2>
        {today.error && <LoadError error={today.error} />}
        {!today.data && !today.error && <Loading what="today's use" />}
        {today.data &&
          (near.length === 0 ? (
            <p class="muted">None.</p>
          ) : (
            <KeyUsageTable rows={near} caption="Keys near their day limit" />
          ))}
      </section>
      <section aria-labelledby="top-heading">
        <h2 id="top-heading">Most used keys today</h2>
        {today.data &&
          (top.length === 0 ? (
            <p class="muted">No requests today.</p>
          ) : (
            <KeyUsageTable rows={top} caption="Most used keys today" />
          ))}
      </section>
    </>
  );
}
