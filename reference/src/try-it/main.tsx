import './panel.css';
import { render } from 'preact';
import { baseUrlOf } from '../../../src/docs/samples.js';
import { OperationSamples } from './operation-samples.js';
import {
  type DocumentOperation,
  type OpenApiDocument,
  operationsOf,
  withoutCodeSamples,
} from './operations.js';
import { TryItPanel } from './try-it-panel.js';

// Joins the page Redoc renders. Before Redoc renders, the init script sends `redoc-spec`: Redoc is given the
// document without its code samples, which this script shows itself. When Redoc is done, `redoc-rendered`
// brings the document it rendered, and each operation gets a "Try it" button that opens the panel for it,
// and its samples in Redoc's right column. Redoc keeps rendering its own tree; the panel and the samples
// live in roots of their own inside it. This script runs before the document has even arrived, so neither
// event can be missed.
const redoc = document.getElementById('redoc') as HTMLElement;
const panelRoot = document.body.appendChild(document.createElement('div'));

function addButton(spec: OpenApiDocument, operation: DocumentOperation, heading: Element): void {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'try-it-open';
  button.textContent = 'Try it';
  button.setAttribute('aria-haspopup', 'dialog');
  button.setAttribute('aria-label', `Try it: ${operation.summary}`);
  button.addEventListener('click', () =>
    render(
      <TryItPanel
        key={operation.operationId}
        spec={spec}
        operation={operation}
        onClose={() => render(null, panelRoot)}
      />,
      panelRoot,
    ),
  );
  heading.after(button);
}

function joinRedoc(spec: OpenApiDocument): void {
  // The samples send where the panel does: this origin, whatever host the page was loaded from.
  const baseUrl = `${location.origin}${new URL(baseUrlOf(spec, location.origin)).pathname}`;
  for (const operation of operationsOf(spec)) {
    const section = document.getElementById(`tag/${operation.tag}/operation/${operation.operationId}`);
    const heading = section?.querySelector('h2');
    if (!section || !heading) continue;
    addButton(spec, operation, heading);
    // Redoc's operation is two columns: its text, then the dark one of samples.
    const column = section.firstElementChild?.children[1];
    if (column === undefined) continue;
    const root = document.createElement('div');
    column.prepend(root);
    render(<OperationSamples spec={spec} operation={operation} baseUrl={baseUrl} />, root);
  }
}

redoc.addEventListener(
  'redoc-spec',
  (event) => {
    const shown = (event as CustomEvent<{ spec: OpenApiDocument }>).detail;
    shown.spec = withoutCodeSamples(shown.spec);
  },
  { once: true },
);
redoc.addEventListener(
  'redoc-rendered',
  (event) => joinRedoc((event as CustomEvent<OpenApiDocument>).detail),
  {
    once: true,
  },
);
