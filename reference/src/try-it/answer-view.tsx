/** What the server answered to a request sent from the panel. */
export interface Answer {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: string;
  /** How long it took, in milliseconds. */
  tookMs: number;
}

// The headers a reader reads to pace their requests: the windows, and how long to wait after a 429.
const PACING = /^(x-ratelimit-|ratelimit|retry-after$)/;

/** JSON shown indented; anything else as it came. */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** The answer: its status, its headers with the rate-limit ones marked, and its body. */
export function AnswerView({ answer }: { answer: Answer }) {
  const ok = answer.status < 400;
  return (
    <section class="answer" aria-labelledby="try-it-answer">
      <h3 id="try-it-answer">
        Answer:{' '}
        <span class={ok ? 'status status-ok' : 'status status-error'} data-testid="answer-status">
          {answer.status} {answer.statusText}
        </span>{' '}
        <span class="took">in {Math.round(answer.tookMs)} ms</span>
      </h3>
      <h4>Headers</h4>
      <dl class="headers">
        {answer.headers.map(([name, value]) => (
          <div key={name} class={PACING.test(name) ? 'header pacing' : 'header'} data-header={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <h4>Body</h4>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls must be reachable by keyboard to be scrolled (WCAG 2.1.1). */}
      <pre class="body" data-testid="answer-body" tabIndex={0}>
        {answer.body === '' ? '(empty)' : pretty(answer.body)}
      </pre>
    </section>
  );
}
