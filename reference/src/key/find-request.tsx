import { useState } from 'preact/hooks';
import { FindRequestForm } from '../../../kit/components/find-request-form.js';
import { RequestTable } from '../../../kit/components/request-table.js';
import { LoadError } from '../../../kit/components/status.js';
import { REQUEST_ID_PATTERN } from '../../../src/contract/request-id.js';
import { findOwnRequest, type LoggedRequest } from './api.js';

const REQUEST_ID = new RegExp(REQUEST_ID_PATTERN);

type Outcome =
  | { kind: 'found'; request: LoggedRequest }
  | { kind: 'none'; id: string }
  | { kind: 'malformed' }
  | { kind: 'failed'; error: Error };

/**
 * "Find a request": the holder pastes a request id (an Error body's `requestId`, a response's `X-Request-Id`)
 * and sees that request, if it is one of the key's (`GET /v1/key/requests?requestId=`, which spends no
 * quota). An id that cannot be one is said at once, without asking.
 */
export function FindRequest({ apiKey }: { apiKey: string }) {
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState(false);

  const find = async (id: string) => {
    if (!REQUEST_ID.test(id)) {
      setOutcome({ kind: 'malformed' });
      return;
    }
    setBusy(true);
    try {
      const request = await findOwnRequest(apiKey, id);
      setOutcome(request === undefined ? { kind: 'none', id } : { kind: 'found', request });
    } catch (failure) {
      setOutcome({ kind: 'failed', error: failure as Error });
    } finally {
      setBusy(false);
    }
  };

  const malformed = outcome?.kind === 'malformed';
  return (
    <section class="panel" aria-labelledby="find-request-heading">
      <h2 id="find-request-heading">Find a request</h2>
      <FindRequestForm
        label="Find one of your requests by its id"
        class="filters"
        fieldId="find-request-id"
        placeholder="From an Error body or X-Request-Id"
        field={{
          class: 'request-id-field',
          'aria-invalid': malformed ? 'true' : undefined,
          'aria-describedby': 'find-request-hint',
        }}
        find={{ class: 'button-primary', disabled: busy }}
        onFind={find}
      />
      <p id="find-request-hint" class={malformed ? 'error' : 'hint'} aria-live="polite">
        {malformed
          ? 'A request id has only letters, digits and . _ : @ / + = - (1 to 128 of them): check what you pasted.'
          : 'The requestId of an Error body, or the X-Request-Id header of an answer.'}
      </p>
      <p role="status">
        {outcome?.kind === 'found' && `Your request ${outcome.request.requestId}:`}
        {outcome?.kind === 'none' && (
          <>
            None of this key's requests has the id <code>{outcome.id}</code>. It may be another key's, older
            than the days the request log keeps (7 by default), or sent while the log was off; a request just
            answered shows within a second.
          </>
        )}
      </p>
      {outcome?.kind === 'failed' && <LoadError error={outcome.error} />}
      {outcome?.kind === 'found' && (
        <RequestTable rows={[outcome.request]} caption={`Your request ${outcome.request.requestId}`} />
      )}
    </section>
  );
}
