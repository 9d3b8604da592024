import { api } from '../api.js';
import { useServerData } from '../hooks.js';
import { LoadError, Loading } from './status.js';
import { UsageChart } from './usage-chart.js';

/** Requests per hour over the last 48 hours and per day over the last 90, of one key or of all keys. */
export function UsageCharts({ keyId }: { keyId?: string }) {
  const usage = useServerData(
    () => Promise.all([api.usage('hour', keyId), api.usage('day', keyId)]),
    [keyId],
  );
  if (usage.error) return <LoadError error={usage.error} />;
  if (!usage.data) return <Loading what="usage" />;
  const [hourly, daily] = usage.data;
  return (
    <div class="charts">
      <UsageChart title="Requests per hour, last 48 hours" series={hourly} keyId={keyId} />
      <UsageChart title="Requests per day, last 90 days" series={daily} keyId={keyId} />
    </div>
  );
}
