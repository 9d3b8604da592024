import { useState } from 'preact/hooks';
import { Badge } from '../../../kit/components/badge.js';
import { LoadError, Loading } from '../../../kit/components/status.js';
import { type UsageBucket, UsageChart, type UsageSeries } from '../../../kit/components/usage-chart.js';
import { formatNumber, formatTime } from '../../../kit/format.js';
import { useServerData } from '../../../kit/hooks.js';
import { callWithKey, type KeyInfo, type KeyUsageHistory, type KeyWindow } from './api.js';
import { Countdown } from './countdown.js';
import { FindRequest } from './find-request.js';
import { KeyRequests } from './key-requests.js';
import { RevokeKey } from './revoke-key.js';
import { RotateKey } from './rotate-key.js';

/** The console's chart takes a series of the admin API's shape; the buckets are the same. */
function seriesOf(buckets: UsageBucket[], granularity: 'hour' | 'day'): UsageSeries {
  return {
    key: null,
    granularity,
    from: buckets[0]?.start ?? '',
    to: buckets.at(-1)?.start ?? '',
    buckets,
  };
}

/**
 * A bucket's requests: the console's request log, where the charts linked before they were the kit's. A click
 * on a bar only pushes that URL, as the console's router did here (this page has no router to follow it).
 */
const requestsOf = (range: { from: string; to: string }) => `/console/requests?${new URLSearchParams(range)}`;
const pushUrl = (href: string) => history.pushState(null, '', href);

/** The calling key as the service sees it now, its usage, and what can be done to it. */
export function KeyDetails({ apiKey }: { apiKey: string }) {
  // Asked again when the key changes (a rotation) and when an action says so.
  const [asked, setAsked] = useState(0);
  const loaded = useServerData(
    () =>
      Promise.all([callWithKey<KeyInfo>(apiKey, '/key'), callWithKey<KeyUsageHistory>(apiKey, '/key/usage')]),
    [apiKey, asked],
  );
  if (loaded.error) return <LoadError error={loaded.error} />;
  if (!loaded.data) return <Loading what="your key" />;
  const [info, usage] = loaded.data;
  return (
    <>
      <section class="panel" aria-labelledby="key-facts">
        <div class="title-row">
          <h2 id="key-facts">{info.name}</h2>
          <button type="button" onClick={() => setAsked(asked + 1)}>
            Refresh
          </button>
        </div>
        <dl class="facts" data-testid="key-facts">
          <dt>ID</dt>
          <dd>
            <code>{info.id}</code>
          </dd>
          <dt>Plan</dt>
          <dd data-fact="plan">{info.plan}</dd>
          <dt>Scopes</dt>
          <dd data-fact="scopes">{info.scopes.join(', ')}</dd>
          <dt>Expires</dt>
          <dd data-fact="expiresAt">{formatTime(info.expiresAt, 'Never')}</dd>
          <dt>Last used</dt>
          <dd>{formatTime(info.lastUsedAt, 'Never')}</dd>
          <dt>Ban</dt>
          <dd data-fact="ban">
            {info.ban.banned ? (
              <Badge tone="bad">Banned until {formatTime(info.ban.until)}</Badge>
            ) : (
              'Not banned'
            )}
          </dd>
        </dl>
      </section>
      <section class="panel" aria-labelledby="key-windows">
        <h2 id="key-windows">Rate-limit windows</h2>
        {/* A list rather than a table: it wraps at a phone's width, where four columns would scroll. */}
        <ul class="windows">
          <WindowItem name="minute" label="This minute (UTC)" window={info.limits.minute} />
          <WindowItem name="day" label="Today (UTC)" window={info.limits.day} />
        </ul>
      </section>
      {/* Before the charts, whose buckets are many stops of the keyboard: a holder with an id finds it first. */}
      <FindRequest apiKey={apiKey} />
      <section class="panel" aria-labelledby="key-usage">
        <h2 id="key-usage">Usage</h2>
        <UsageChart
          title="Requests by hour, last 48 hours"
          series={seriesOf(usage.hours, 'hour')}
          requestsOf={requestsOf}
          open={pushUrl}
        />
        <UsageChart
          title="Requests by day, last 30 days"
          series={seriesOf(usage.days, 'day')}
          requestsOf={requestsOf}
          open={pushUrl}
        />
      </section>
      <KeyRequests apiKey={apiKey} />
      <RotateKey apiKey={apiKey} />
      <RevokeKey apiKey={apiKey} replacedBy={info.replacedBy} />
    </>
  );
}

function WindowItem({ name, label, window }: { name: string; label: string; window: KeyWindow }) {
  return (
    <li data-window={name}>
      <strong>{label}:</strong> <span data-field="remaining">{formatNumber(window.remaining)}</span> of{' '}
      <span data-field="limit">{formatNumber(window.limit)}</span> requests left; resets{' '}
      <Countdown resetSeconds={window.reset} />
    </li>
  );
}
