import { Counter, type CounterConfiguration, type LabelValues } from 'prom-client';

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
