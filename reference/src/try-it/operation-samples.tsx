import { signal } from '@preact/signals';
import { useId, useMemo, useRef } from 'preact/hooks';
import { CopyButton } from '../../../kit/components/copy-button.js';
import { codeSamples, exampleRequest } from '../../../src/docs/samples.js';
import { readerKey } from '../shared/key-store.js';
import type { DocumentOperation, OpenApiDocument } from './operations.js';

/** The language shown, the same beside every operation: a reader reads one language. */
const chosen = signal(0);

interface OperationSamplesProps {
  spec: OpenApiDocument;
  operation: DocumentOperation;
  /** Where the samples send: this page's origin and the document's base path. */
  baseUrl: string;
}

/**
 * The samples beside an operation, in Redoc's right column, in its place: the operation's example request in
 * each language, sent to the origin this page came from and with the reader's key once entered (as the
 * panel's are). Redoc draws its samples once, from the document, so it cannot show a key entered later, and
 * its Copy would copy the document's text; these follow the key. Tabs as WAI-ARIA's pattern: one tab stop,
 * arrow keys move between the languages.
 */
export function OperationSamples({ spec, operation, baseUrl }: OperationSamplesProps) {
  const id = useId();
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);
  const request = useMemo(
    () => exampleRequest(spec, operation.path, operation.method),
    [spec, operation.path, operation.method],
  );
  const key = readerKey.value === '' ? undefined : readerKey.value;
  const samples = codeSamples(request, { baseUrl, key });
  const current = Math.min(chosen.value, samples.length - 1);
  const sample = samples[current];
  if (sample === undefined) return null;

  const onKeyDown = (event: KeyboardEvent) => {
    const last = samples.length - 1;
    const next = {
      ArrowRight: current === last ? 0 : current + 1,
      ArrowLeft: current === 0 ? last : current - 1,
      Home: 0,
      End: last,
    }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    chosen.value = next;
    tabs.current[next]?.focus();
  };

  return (
    <section class="redoc-samples" aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`}>Code samples</h3>
      <div class="redoc-samples-tabs" role="tablist" aria-label={`Code samples: ${operation.summary}`}>
        {samples.map((each, index) => (
          <button
            key={each.label}
            ref={(element) => {
              tabs.current[index] = element;
            }}
            type="button"
            role="tab"
            id={`${id}-tab-${index}`}
            aria-selected={index === current}
            aria-controls={`${id}-panel`}
            tabIndex={index === current ? 0 : -1}
            onClick={() => {
              chosen.value = index;
            }}
            onKeyDown={onKeyDown}
          >
            {each.label}
          </button>
        ))}
      </div>
      <div
        class="redoc-samples-panel"
        role="tabpanel"
        id={`${id}-panel`}
        aria-labelledby={`${id}-tab-${current}`}
      >
        <CopyButton value={sample.source} what={`the ${sample.label} sample`} />
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls must be reachable by keyboard to be scrolled (WCAG 2.1.1). */}
        <pre tabIndex={0}>{sample.source}</pre>
      </div>
    </section>
  );
}
