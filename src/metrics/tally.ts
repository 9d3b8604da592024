import {
  Counter,
  type CounterConfiguration,
  type LabelValues,
  type Metric,
  type Registry,
} from 'prom-client';

/** One combination of a counter's labels, counted in a plain number until the counter is next scraped. */
export class Tally<L extends string> {
  count = 0;
  constructor(readonly labels: LabelValues<L>) {}

  add(): void {
    this.count += 1;
  }
}

/**
 * A prom-client counter counted on the hot path in plain numbers, one {@link Tally} per combination of
 * labels, and brought up to date whenever it is read: its `collect`, which prom-client runs before every
 * scrape, adds what the tallies counted since. prom-client's own `inc` validates and hashes the labels on
 * every call, a labelled child's included; on the list that was about 0.3 us of a request's 20 us for the
 * two counters every request passes (a CPU profile of `GET /v1/categories`).
 */
export class TalliedCounter<L extends string> {
  readonly #tallies: Tally<L>[] = [];

  /** Registers the counter in the registers `configuration` names; it is read only through them. */
  constructor(configuration: Omit<CounterConfiguration<L>, 'collect'>) {
    const tallies = this.#tallies;
    new Counter<L>({
      ...configuration,
      collect() {
        for (const tally of tallies) {
          if (tally.count === 0) continue;
          this.inc(tally.labels, tally.count);
          tally.count = 0;
        }
      },
    });
  }

  /** The tally of one combination of labels: ask once per combination, and keep it. */
  tally(labels: LabelValues<L>): Tally<L> {
    const tally = new Tally<L>(labels);
    this.#tallies.push(tally);
    return tally;
  }
}

/** One combination of a histogram's labels, observed in plain numbers: a count per bucket, and the sum. */
export class HistogramTally<L extends string> {
  /** Observations per bucket, not cumulative: `counts[i]` those at most `bounds[i]` and above the bound before; the last, those above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  constructor(
    readonly labels: LabelValues<L>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let bucket = 0;
    while (bucket < bounds.length && value > (bounds[bucket] as number)) bucket += 1;
    this.counts[bucket] = (this.counts[bucket] as number) + 1;
    this.sum += value;
  }
}

/** What the registry reads of a metric: its name, its kind, and its values at each scrape. */
interface Collected {
  name: string;
  help: string;
  type: 'histogram';
  aggregator: 'sum';
  values: { labels: Partial<Record<string, string | number>>; value: number; metricName: string }[];
}

/**
 * A histogram observed on the hot path in plain numbers, one {@link HistogramTally} per combination of labels,
 * and read by the registry as prom-client's own histograms are (`_bucket` cumulative with `le`, `_sum`,
 * `_count`). prom-client's `observe`, a labelled child's included, validates and hashes the labels on every
 * call: 1.7% of the list's CPU in a profile under load (docs/durability-and-speed.md), more than counting it here.
 */
export class TalliedHistogram<L extends string> {
  readonly #tallies: HistogramTally<L>[] = [];
  readonly #bounds: readonly number[];

  constructor(configuration: {
    name: string;
    help: string;
    buckets: readonly number[];
    registers: readonly Registry[];
  }) {
    const { name, help, buckets, registers } = configuration;
    this.#bounds = [...buckets].sort((a, b) => a - b);
    const tallies = this.#tallies;
    const bounds = this.#bounds;
    // The registry asks a metric only for its name, `get` and `reset`; prom-client's types name its own classes.
    const metric = {
      name,
      help,
      type: 'histogram',
      aggregator: 'sum',
      reset() {
        for (const tally of tallies) {
          tally.counts.fill(0);
          tally.sum = 0;
        }
      },
      async get(): Promise<Collected> {
        const values: Collected['values'] = [];
        for (const { labels, counts, sum } of tallies) {
          let count = 0;
          bounds.forEach((le, i) => {
            count += counts[i] as number;
            values.push({ labels: { le, ...labels }, value: count, metricName: `${name}_bucket` });
          });
          count += counts[bounds.length] as number;
          values.push({ labels: { le: '+Inf', ...labels }, value: count, metricName: `${name}_bucket` });
          values.push({ labels: { ...labels }, value: sum, metricName: `${name}_sum` });
          values.push({ labels: { ...labels }, value: count, metricName: `${name}_count` });
        }
        return { name, help, type: 'histogram', aggregator: 'sum', values };
      },
    };
    for (const registry of registers) registry.registerMetric(metric as unknown as Metric);
  }

  /** The tally of one combination of labels: ask once per combination, and keep it. */
  tally(labels: LabelValues<L>): HistogramTally<L> {
    const tally = new HistogramTally<L>(labels, this.#bounds);
    this.#tallies.push(tally);
    return tally;
  }
}
