import './panel.css';
import { render } from 'preact';
import { type OpenApiDocument, operationsOf } from './operations.js';
import { TryItPanel } from './try-it-panel.js';

// Joins the page Redoc renders: when Redoc is done, the init script sends `redoc-rendered` with the document
// it rendered, and each operation's section gets a "Try it" button that opens the panel for it. Redoc keeps
// rendering its own tree; the panel lives in a root of its own beside it. This script runs before the
// document has even arrived, so the event cannot be missed.
const redoc = document.getElementById('redoc') as HTMLElement;
const panelRoot = document.body.appendChild(document.createElement('div'));

function addButtons(spec: OpenApiDocument): void {
  for (const operation of operationsOf(spec)) {
    const section = document.getElementById(`tag/${operation.tag}/operation/${operation.operationId}`);
    const heading = section?.querySelector('h2');
    if (!heading) continue;
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
}

redoc.addEventListener(
  'redoc-rendered',
  (event) => addButtons((event as CustomEvent<OpenApiDocument>).detail),
  {
    once: true,
  },
);
