import type { Static } from '@sinclair/typebox';
import { useEffect, useId, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { UsageSeries as UsageSeriesSchema } from '../../src/contract/usage.js';
import { formatDay, formatNumber, formatTime } from '../format.js';

/** A key's or all keys' requests by hour or by day, as the usage endpoints answer them. */
export type UsageSeries = Static<typeof UsageSeriesSchema>;
export type UsageBucket = UsageSeries['buckets'][number];

type Outcome = Exclude<keyof UsageBucket, 'start'>;

/**
 * The four outcomes, stacked in this order from the bottom of each bar, each with its own colour; the legend
 * and the table name them in words, and the order never changes, so they differ without colour too.
 */
const OUTCOMES: readonly { field: Outcome; label: string; color: string }[] = [
  { field: 'success', label: 'OK', color: '#2563eb' },
  { field: 'clientErrors', label: 'Client errors', color: '#b45309' },
  { field: 'rateLimited', label: 'Rate limited', color: '#7c3aed' },
  { field: 'serverErrors', label: 'Server errors', color: '#dc2626' },
];

/** A row's four counts in the table, one cell an outcome, in the order of the bars. */
const countCells = (counts: Record<Outcome, number>) =>
  OUTCOMES.map(({ field }) => (
    <td key={field} class="number">
      {formatNumber(counts[field])}
    </td>
  ));

const HEIGHT = 220;
/** Counts are whole: the y axis steps by 1, 2 or 5 times a power of ten, never by a half. */
const WHOLE_STEPS = Array.from({ length: 10 }, (_, power) =>
  [1, 2, 5].map((step) => step * 10 ** power),
).flat();
const UTC = (seconds: number) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC');
const BUCKET_SECONDS = { hour: 3600, day: 86_400 } as const;
/** uPlot's bars; its types leave each path builder optional for its smaller builds, but this one has them all. */
const bars = uPlot.paths.bars as NonNullable<typeof uPlot.paths.bars>;

/** A time axis label in UTC, 24-hour: `14:00` by the hour, with the date at midnight; `11-26` by the day. */
function tickLabel(seconds: number, hourly: boolean): string {
  const iso = new Date(seconds * 1000).toISOString();
  const day = iso.slice(5, 10);
  const hour = iso.slice(11, 16);
  if (!hourly) return day;
  return hour === '00:00' ? `${day}\n${hour}` : hour;
}

/**
 * The chart's options. Counts are bars, one a bucket spanning its hour or day, so a burst is one bar (a line
 * would draw it as a ramp from the bucket before); the outcomes are stacked, each bar from the top of the one
 * below (`disp.y0`, `disp.y1`), while the series keep their own counts for the legend. The legend shows the
 * bucket under the cursor, and the latest bucket when there is none (uPlot's own would show `--`).
 */
function plotOptions(width: number, series: UsageSeries): uPlot.Options {
  const hourly = series.granularity === 'hour';
  const { buckets } = series;
  const last = buckets.length - 1;
  const at = (index: number | null) => index ?? last;
  // The top of each outcome's part of each bar: the counts of the outcomes below it and its own.
  const tops: number[][] = [];
  OUTCOMES.forEach(({ field }, index) => {
    tops.push(buckets.map((bucket, place) => (tops[index - 1]?.[place] ?? 0) + bucket[field]));
  });
  const highest = Math.max(1, ...(tops.at(-1) ?? []));
  const first = Date.parse(buckets[0]?.start ?? series.from) / 1000;
  const end = Date.parse(buckets[last]?.start ?? series.from) / 1000 + BUCKET_SECONDS[series.granularity];
  const bucketLabel = (index: number | null) => {
    const start = buckets[at(index)]?.start;
    return start === undefined ? '' : hourly ? formatTime(start) : formatDay(start);
  };
  return {
    width,
    height: HEIGHT,
    tzDate: UTC,
    // uPlot's hover points would sit at each outcome's own count, not on its part of the stacked bar.
    cursor: { points: { show: false } },
    // The x range ends where the last bucket does, so that its bar is drawn in full.
    scales: { x: { time: true, range: () => [first, end] }, y: { range: () => [0, highest] } },
    series: [
      {
        label: hourly ? 'Hour (UTC)' : 'Day (UTC)',
        value: (_plot, _raw, _series, index) => bucketLabel(index),
      },
      ...OUTCOMES.map(({ field, label, color }, index) => ({
        label,
        stroke: color,
        fill: color,
        width: 0,
        points: { show: false },
        value: (_plot: uPlot, _raw: number, _series: number, bucket: number | null) =>
          formatNumber(buckets[at(bucket)]?.[field] ?? 0),
        paths: bars({
          // Each bar starts where its bucket does and fills most of it.
          align: 1,
          size: [0.8, Number.POSITIVE_INFINITY, 1],
          disp: {
            y0: { unit: 1, values: () => tops[index - 1] ?? buckets.map(() => 0) },
            y1: { unit: 1, values: () => tops[index] ?? [] },
          },
        }),
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
 * `<details>` but kept readable (see `.numbers` in styles/pages.css). Each bucket of the table links to its requests
 * (`requestsOf`), and a click on its bar opens them (`open`).
 */
export function UsageChart({
  title,
  series,
  requestsOf,
  open,
}: {
  title: string;
  series: UsageSeries;
  /** The URL of a bucket's requests, from its start to its end. */
  requestsOf: (range: { from: string; to: string }) => string;
  /** Follows that URL when a bar is clicked. */
  open: (href: string) => void;
}) {
  const holder = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const hourly = series.granularity === 'hour';
  const totals = Object.fromEntries(
    OUTCOMES.map(({ field }) => [field, series.buckets.reduce((sum, bucket) => sum + bucket[field], 0)]),
  ) as Record<Outcome, number>;

  const seconds = BUCKET_SECONDS[series.granularity];
  const bucketHref = (start: string) =>
    requestsOf({ from: start, to: new Date(Date.parse(start) + seconds * 1000).toISOString() });

  useEffect(() => {
    const element = holder.current;
    if (element === null) return undefined;
    const data: uPlot.AlignedData = [
      series.buckets.map((bucket) => Date.parse(bucket.start) / 1000),
      ...OUTCOMES.map(({ field }) => series.buckets.map((bucket) => bucket[field])),
    ];
    const plot = new uPlot(plotOptions(element.clientWidth, series), data, element);
    const resized = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: HEIGHT }));
    resized.observe(element);
    // A click on a bar opens its bucket's requests; the keyboard has the same links in the table.
    const openBar = () => {
      const start = series.buckets[plot.cursor.idx ?? -1]?.start;
      if (start !== undefined) open(bucketHref(start));
    };
    plot.over.addEventListener('click', openBar);
    return () => {
      plot.over.removeEventListener('click', openBar);
      resized.disconnect();
      plot.destroy();
    };
  }, [series]);

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
                  <th scope="row">
                    <a href={bucketHref(bucket.start)}>
                      {hourly ? formatTime(bucket.start) : formatDay(bucket.start)}
                    </a>
                  </th>
                  {countCells(bucket)}
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">Total</th>
                {countCells(totals)}
              </tr>
            </tfoot>
          </table>
        </div>
      </details>
    </section>
  );
}
