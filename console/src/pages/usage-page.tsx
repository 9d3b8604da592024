import { CardTable, type Column } from '../../../kit/components/card-table.js';
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

/** A column of counts, right-aligned. */
function count(header: string, value: (row: KeyUsage) => number): Column<KeyUsage> {
  return { header, class: 'number', cell: (row) => formatNumber(value(row)) };
}

function KeyUsageTable({ rows, caption }: { rows: KeyUsage[]; caption: string }) {
  return (
    <CardTable
      caption={caption}
      class="wide"
      rows={rows}
      rowKey={(row) => row.keyId}
      name={{
        header: 'Key',
        cell: (row) => (
          <>
            <a href={href('keys', row.keyId)} class="break">
              {row.name}
            </a>{' '}
            <code class="muted">{row.keyId}</code>
          </>
        ),
      }}
      columns={[
        { header: 'Plan', cell: (row) => row.plan },
        count('Used today', (row) => row.used),
        count('Day limit', (row) => row.perDay),
        { header: 'Share', class: 'number', cell: (row) => formatShare(row.dayShare) },
        count('OK', (row) => row.success),
        count('Client errors', (row) => row.clientErrors),
        count('Rate limited', (row) => row.rateLimited),
        count('Server errors', (row) => row.serverErrors),
      ]}
    />
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
