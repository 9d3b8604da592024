import { useEffect, useId, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { formatDay, formatNumber, formatTime } from '../format.js';
import type { UsageBucket, UsageSeries } from '../types.js';

type Outcome = Exclude<keyof UsageBucket, 'start'>;

/**
 * The four outcomes, each with its own colour and line style, so that they differ without colour too; the
 * legend and the table name them in words.
 */
const OUTCOMES: readonly { field: Outcome; label: string; stroke: string; dash?: number[] }[] = [
  { field: 'success', label: 'OK', stroke: '#2563eb' },
  { field: 'clientErrors', label: 'Client errors', stroke: '#b45309', dash: [8, 4] },
  { field: 'rateLimited', label: 'Rate limited', stroke: '#7c3aed', dash: [2, 3] },
  { field: 'serverErrors', label: 'Server errors', stroke: '#dc2626', dash: [12, 3, 2, 3] },
];

const HEIGHT = 220;
/** Counts are whole: the y axis steps by 1, 2 or 5 times a power of ten, never by a half. */
const WHOLE_STEPS = Array.from({ length: 10 }, (_, power) =>
  [1, 2, 5].map((step) => step * 10 ** power),
).flat();
const UTC = (seconds: number) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC');

/** A time axis label in UTC, 24-hour: `14:00` by the hour, with the date at midnight; `11-26` by the day. */
function tickLabel(seconds: number, hourly: boolean): string {
  const iso = new Date(seconds * 1000).toISOString();
  const day = iso.slice(5, 10);
  const hour = iso.slice(11, 16);
  if (!hourly) return day;
  return hour === '00:00' ? `${day}\n${hour}` : hour;
}

function plotOptions(width: number, hourly: boolean): uPlot.Options {
  return {
    width,
    height: HEIGHT,
    tzDate: UTC,
    scales: { x: { time: true } },
    series: [
      {
        label: hourly ? 'Hour (UTC)' : 'Day (UTC)',
        value: hourly ? '{YYYY}-{MM}-{DD} {HH}:00' : '{YYYY}-{MM}-{DD}',
      },
      ...OUTCOMES.map(({ label, stroke, dash }) => ({
        label,
        stroke,
        width: 2,
        ...(dash === undefined ? {} : { dash }),
        points: { show: false },
      })),
    ],
    axes: [
      { space: 60, values: (_plot: uPlot, ticks: number[]) => ticks.map((tick) => tickLabel(tick, hourly)) },
      {
        incrs: WHOLE_STEPS,
        values: (_plot: uPlot, ticks: number[]) => ticks.map((tick) => formatNumber(tick)),
      },
    ],
  };
}

/**
 * One usage series as a uPlot chart of the four outcomes, followed by the same numbers as a table. The chart
 * is a picture (hidden from screen readers); the table is the accessible form, collapsed on screen in a
 * `<details>` but kept readable (see `.numbers` in styles.css).
 */
export function UsageChart({ title, series }: { title: string; series: UsageSeries }) {
  const holder = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const hourly = series.granularity === 'hour';
  const totals = Object.fromEntries(
    OUTCOMES.map(({ field }) => [field, series.buckets.reduce((sum, bucket) => sum + bucket[field], 0)]),
  ) as Record<Outcome, number>;

  useEffect(() => {
    const element = holder.current;
    if (element === null) return undefined;
    const data: uPlot.AlignedData = [
      series.buckets.map((bucket) => Date.parse(bucket.start) / 1000),
      ...OUTCOMES.map(({ field }) => series.buckets.map((bucket) => bucket[field])),
    ];
    const plot = new uPlot(plotOptions(element.clientWidth, hourly), data, element);
    const resized = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: HEIGHT }));
    resized.observe(element);
    return () => {
      resized.disconnect();
      plot.destroy();
    };
  }, [series, hourly]);

  return (
    <section class="chart" aria-labelledby={titleId}>
      <h3 id={titleId}>{title}</h3>
      <p class="chart-totals">
        {OUTCOMES.map(({ field, label }) => `${label}: ${formatNumber(totals[field])}`).join(' · ')}
      </p>
      <div class="chart-plot" ref={holder} aria-hidden="true" />
      <details class="numbers">
        <summary>Table of these numbers</summary>
        <div class="table-scroll">
          <table>
            <caption>{title}</caption>
            <thead>
              <tr>
                <th scope="col">{hourly ? 'Hour (UTC)' : 'Day (UTC)'}</th>
                {OUTCOMES.map(({ label }) => (
                  <th scope="col" key={label}>
                    {label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {series.buckets.map((bucket) => (
                <tr key={bucket.start}>
                  <th scope="row">{hourly ? formatTime(bucket.start) : formatDay(bucket.start)}</th>
                  {OUTCOMES.map(({ field }) => (
                    <td key={field} class="number">
                      {formatNumber(bucket[field])}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">Total</th>
                {OUTCOMES.map(({ field }) => (
                  <td key={field} class="number">
                    {formatNumber(totals[field])}
                  </td>
                ))}
              </tr>
            </tfoot>
          </table>
        </div>
      </details>
    </section>
  );
}
