import { LoadError, Loading } from '../../../kit/components/status.js';
import { UsageChart } from '../../../kit/components/usage-chart.js';
import { useServerData } from '../../../kit/hooks.js';
import { api } from '../api.js';
import { navigate, requestsHref } from '../router.js';

/** Requests per hour over the last 48 hours and per day over the last 90, of one key or of all keys. */
export function UsageCharts({ keyId }: { keyId?: string }) {
  const usage = useServerData(
    () => Promise.all([api.usage('hour', keyId), api.usage('day', keyId)]),
    [keyId],
  );
  if (usage.error) return <LoadError error={usage.error} />;
  if (!usage.data) return <Loading what="usage" />;
  const [hourly, daily] = usage.data;
  // A bucket's requests, in the request log, of the key when these are one key's.
  const requestsOf = (range: { from: string; to: string }) =>
    requestsHref({ ...(keyId ? { key: keyId } : {}), ...range });
  return (
    <div class="charts">
      <UsageChart
        title="Requests per hour, last 48 hours"
        series={hourly}
        requestsOf={requestsOf}
        open={navigate}
      />
      <UsageChart
        title="Requests per day, last 90 days"
        series={daily}
        requestsOf={requestsOf}
        open={navigate}
      />
    </div>
  );
}
