import { useEffect, useId, useMemo, useRef, useState } from 'preact/hooks';
import {
  baseUrlOf,
  exampleRequest,
  hasBody,
  requestHeaders,
  requestTarget,
  type SampleRequest,
} from '../../../src/docs/samples.js';
import { keyProblem } from '../shared/key-check.js';
import { readerKey } from '../shared/key-store.js';
import { type Answer, AnswerView } from './answer-view.js';
import { CodeSamples } from './code-samples.js';
import type { DocumentOperation, OpenApiDocument } from './operations.js';
import { PanelKey } from './panel-key.js';

interface TryItPanelProps {
  spec: OpenApiDocument;
  operation: DocumentOperation;
  onClose: () => void;
}

/** Sends the request to this origin, whatever host the page was loaded from, and reads the whole answer. */
async function send(basePath: string, request: SampleRequest): Promise<Answer> {
  const headers: Record<string, string> = requestHeaders(request);
  if (readerKey.value !== '') headers.Authorization = `Bearer ${readerKey.value}`;
  const started = performance.now();
  const response = await fetch(`${basePath}${requestTarget(request)}`, {
    method: request.method,
    headers,
    ...(hasBody(request) ? { body: request.body } : {}),
    // The reader asks for the answer of now: never a cached one, never with a cookie.
    cache: 'no-store',
    credentials: 'omit',
  });
  const body = await response.text();
  return {
    status: response.status,
    statusText: response.statusText,
    headers: [...response.headers.entries()],
    body,
    tookMs: performance.now() - started,
  };
}

/**
 * A modal dialog to send one operation with the reader's key: the browser's `<dialog>` moves focus into it,
 * keeps it there and closes on Escape; focus goes back to the button that opened it.
 */
export function TryItPanel({ spec, operation, onClose }: TryItPanelProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [request, setRequest] = useState(() => exampleRequest(spec, operation.path, operation.method));
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  // Same origin, so it works on every host the reference is served at: only the base path is the document's.
  const basePath = useMemo(() => new URL(baseUrlOf(spec, location.origin)).pathname, [spec]);

  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    dialog.current?.showModal();
    return () => opener?.focus();
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    setSending(true);
    setFailure(null);
    try {
      setAnswer(await send(basePath, request));
    } catch (error) {
      setFailure(`The request could not be sent: ${(error as Error).message}`);
    } finally {
      setSending(false);
    }
  };

  const field = (group: 'pathParams' | 'query', name: string, value: string) =>
    setRequest({ ...request, [group]: { ...request[group], [name]: value } });

  return (
    <dialog ref={dialog} class="try-it" aria-labelledby={titleId} onClose={onClose}>
      <header class="try-it-header">
        <h2 id={titleId}>
          <span class={`method method-${operation.method.toLowerCase()}`}>{operation.method}</span>{' '}
          <code>
            {basePath}
            {operation.path}
          </code>
          <span class="summary">{operation.summary}</span>
        </h2>
        <button type="button" class="close" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </header>
      <PanelKey />
      <form onSubmit={submit}>
        <ParameterFields
          legend="Path"
          values={request.pathParams}
          required
          onInput={(name, value) => field('pathParams', name, value)}
        />
        <ParameterFields
          legend="Query"
          values={request.query}
          onInput={(name, value) => field('query', name, value)}
        />
        {request.idempotencyKey !== undefined && (
          <label class="field">
            <span>Idempotency-Key (optional)</span>
            <input
              value={request.idempotencyKey}
              maxLength={255}
              onInput={(event) => setRequest({ ...request, idempotencyKey: event.currentTarget.value })}
            />
          </label>
        )}
        {request.body !== undefined && (
          <label class="field">
            <span>Body (JSON)</span>
            <textarea
              rows={Math.min(10, request.body.split('\n').length + 1)}
              spellcheck={false}
              value={request.body}
              onInput={(event) => setRequest({ ...request, body: event.currentTarget.value })}
            />
          </label>
        )}
        <div class="actions">
          <button type="submit" class="send" disabled={sending}>
            {sending ? 'Sending…' : 'Send'}
          </button>
          <KeyWarning />
        </div>
      </form>
      <div aria-live="polite">
        {failure && <p class="failure">{failure}</p>}
        {answer && <AnswerView answer={answer} />}
      </div>
      <CodeSamples request={request} baseUrl={`${location.origin}${basePath}`} />
    </dialog>
  );
}

/** Beside Send: why the answer will be a 401, when the key entered cannot be right. */
function KeyWarning() {
  if (readerKey.value === '') return <span class="hint">No key entered: the answer will be a 401.</span>;
  const problem = keyProblem(readerKey.value);
  if (problem === undefined) return null;
  return <span class="hint">{problem} As it is, the answer will be a 401.</span>;
}

interface ParameterFieldsProps {
  legend: string;
  values: Record<string, string>;
  required?: boolean;
  onInput: (name: string, value: string) => void;
}

/** One text field per parameter of a kind; nothing when the operation has none. */
function ParameterFields({ legend, values, required = false, onInput }: ParameterFieldsProps) {
  const names = Object.keys(values);
  if (names.length === 0) return null;
  return (
    <fieldset>
      <legend>{legend}</legend>
      {names.map((name) => (
        <label key={name} class="field">
          <span>
            {name}
            {required ? '' : ' (optional)'}
          </span>
          <input
            value={values[name]}
            required={required}
            onInput={(event) => onInput(name, event.currentTarget.value)}
          />
        </label>
      ))}
    </fieldset>
  );
}
