/**
 * Counters for operators, served in the Prometheus text format at `/metrics` (loopback only). Deliberately
 * small: counters with labels are all the service needs today.
 */
export class Counter {
  readonly #values = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {}

  inc(labels: Record<string, string> = {}): void {
    const key = this.#key(labels);
    this.#values.set(key, (this.#values.get(key) ?? 0) + 1);
  }

  /** The count for these labels (0 if never incremented). */
  get(labels: Record<string, string> = {}): number {
    return this.#values.get(this.#key(labels)) ?? 0;
  }

  /** The labels as they are rendered, which also keys the count. */
  #key(labels: Record<string, string>): string {
    return this.labelNames.map((label) => `${label}="${escapeLabel(labels[label] ?? '')}"`).join(',');
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    if (this.#values.size === 0 && this.labelNames.length === 0) lines.push(`${this.name} 0`);
    for (const [labels, value] of this.#values)
      lines.push(`${this.name}${labels ? `{${labels}}` : ''} ${value}`);
    return lines.join('\n');
  }
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** Every counter of one process. */
export interface Metrics {
  deprecatedCalls: Counter;
  rateLimitFailOpen: Counter;
  render(): string;
}

export function createMetrics(): Metrics {
  const deprecatedCalls = new Counter(
    'petstore_deprecated_calls_total',
    'Calls of deprecated operations, by operation and API key id.',
    ['operation', 'key_id'],
  );
  const rateLimitFailOpen = new Counter(
    'petstore_ratelimit_fail_open_total',
    'Requests served on per-instance limits because the shared rate-limit store was unreachable.',
    [],
  );
  const all = [deprecatedCalls, rateLimitFailOpen];
  return {
    deprecatedCalls,
    rateLimitFailOpen,
    render: () => `${all.map((counter) => counter.render()).join('\n')}\n`,
  };
}
