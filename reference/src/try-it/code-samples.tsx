import { CopyButton } from '../../../kit/components/copy-button.js';
import { codeSamples, type SampleRequest } from '../../../src/docs/samples.js';
import { readerKey } from '../shared/key-store.js';

/**
 * The request as it is in the form, in each language, with the reader's key in it once entered: the same
 * generator writes the document's samples, so these read as the ones beside the operation.
 */
export function CodeSamples({ request, baseUrl }: { request: SampleRequest; baseUrl: string }) {
  const key = readerKey.value === '' ? undefined : readerKey.value;
  return (
    <section class="samples" aria-labelledby="try-it-samples">
      <h3 id="try-it-samples">Code samples</h3>
      {codeSamples(request, { baseUrl, key }).map((sample) => (
        <details key={sample.label} class="sample">
          <summary>{sample.label}</summary>
          <CopyButton value={sample.source} what={`the ${sample.label} sample`} />
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls must be reachable by keyboard to be scrolled (WCAG 2.1.1). */}
          <pre tabIndex={0}>{sample.source}</pre>
        </details>
      ))}
    </section>
  );
}
